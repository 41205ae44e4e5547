"""What generate, a study's generate: block and the gym accept, they finish or refuse in bounded time
with one line naming the knob (issue 35)."""


import pytest

from conftest import TEST_WORLDS, adventure
from needs import module
from tui_adventure.engine.yamlpos import SourceErrors
from tui_adventure.generate import MAX_SEED
from tui_adventure.study.spec import MAX_WORLDS, load_study


@pytest.mark.parametrize("args, said", [
    (["--seed", "9" * 300], f"--seed must be a whole number from 0 to {MAX_SEED}"),
    (["--seed", "-1"], "--seed must be a whole number from 0"),
    (["--seed", str(MAX_SEED), "--count", "2"], f"up to {MAX_SEED - 1}"),
    (["--flavour", "clembench", "--seed", "9" * 300], "--seed must be a whole number"),
    (["--par", "0.." + "9" * 5000], "--par"),
    (["--budget", "500k states"], "--budget 500k states: give seconds"),
    (["--budget", "soon"], "--budget soon: give seconds"),
])
def test_generate_refuses_a_seed_or_range_it_cannot_name(tmp_path, args, said):
    out = adventure("generate", "--out", str(tmp_path / "g"), *args)
    assert out.returncode == 2 and said in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.splitlines()) == 1


def test_the_largest_seed_makes_a_world(tmp_path):
    out = adventure("generate", "--out", str(tmp_path / "g"), "--seed", str(MAX_SEED), "--rooms", "3",
                    "--objects", "5", "--goals", "1")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "g" / f"house_r3_o5_g1_s{MAX_SEED}.yaml").is_file()


@pytest.mark.parametrize("knobs, knob", [
    (["--rooms", "20", "--objects", "60", "--goals", "40"], "--goals 40"),
    (["--rooms", "400", "--objects", "2000", "--goals", "50"], "--objects 2000"),
])
# a hang guard; the budget's end is what the last line says. The thread method leaves SIGALRM to the
# budget's timer, which interrupts drafting that never looks at the clock (generate/budget.py)
@pytest.mark.timeout(300, method="thread")
def test_knobs_too_big_to_solve_end_at_the_budget_with_progress_and_the_knob(tmp_path, monkeypatch, knobs, knob):
    from tui_adventure.generate import budget

    monkeypatch.setattr(budget, "HEARTBEAT", 0.5)   # progress notes within a short budget (the CLI runs here)
    out = adventure("generate", "--out", str(tmp_path / "g"), *knobs, "--budget", "2")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    last = out.stderr.splitlines()[-1]
    assert "no world made within the budget of 2 s" in last and f"{knob} (default" in last and "--budget" in last
    assert "seed 0: " in out.stderr.splitlines()[0] and "s of 2)" in out.stderr   # progress while it works
    assert not list((tmp_path / "g").glob("*.yaml"))


def study(tmp_path, text: str):
    path = tmp_path / "study.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("seeds, said", [
    ("[-1]", "seeds: must be a whole number from 0"), (f"[{'9' * 40}]", f"from 0 to {MAX_SEED}"),
    ("[1, -5]", "not -5"), ("[true]", "not True"), ("3", "a list of whole numbers"),
])
def test_a_study_takes_the_seeds_generate_takes(tmp_path, seeds, said):
    with pytest.raises(SourceErrors) as err:
        load_study(study(tmp_path, f"title: X\nworlds:\n  - generate: {{rooms: 3, objects: 5, goals: 1,"
                                   f" seeds: {seeds}}}\n"))
    assert said in str(err.value) and "study.yaml:3:" in str(err.value)


def test_a_study_counts_its_worlds_before_loading_any(tmp_path):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(MAX_WORLDS + 1):   # broken worlds: loading even one would report it
        (folder / f"w{i}.yaml").write_text("rooms: [")
    with pytest.raises(SourceErrors) as err:
        load_study(study(tmp_path, "title: X\nworlds:\n  - house\n  - many\n"))
    assert f"more than {MAX_WORLDS} worlds (counted before loading them)" in str(err.value)
    assert "YAML" not in str(err.value)   # no broken world was loaded


def test_a_study_counts_generated_worlds_before_generating_any(tmp_path, monkeypatch):
    import tui_adventure.generate as generate

    made = []
    monkeypatch.setattr(generate, "generate_world", lambda *a, **k: made.append(a) or pytest.fail("generated"))
    with pytest.raises(SourceErrors) as err:
        load_study(study(tmp_path, f"title: X\nworlds:\n  - generate: {{rooms: 400, objects: 2000, goals: 50,"
                                   f" seeds: {list(range(MAX_WORLDS + 1))}}}\n"))
    assert f"more than {MAX_WORLDS} worlds" in str(err.value) and made == []


@pytest.mark.slow
def test_a_study_generate_block_is_held_to_the_same_budget(tmp_path, monkeypatch):
    import tui_adventure.generate as generate

    monkeypatch.setattr(generate, "DEFAULT_SECONDS", 1.0)
    monkeypatch.setattr(generate.generate_world, "__defaults__", (None, None, 1.0, None))
    with pytest.raises(SourceErrors) as err:
        load_study(study(tmp_path, "title: X\nworlds:\n  - generate: {rooms: 20, objects: 60, goals: 40}\n"))
    assert "no world made within the budget of 1 s" in str(err.value) and "--goals 40" in str(err.value)


# -- the gym's constructor --------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, error, said", [
    ({"world": "house", "max_turns": "x"}, ValueError, "max_turns must be a whole number from 1 to 1000"),
    ({"world": "house", "max_turns": -1}, ValueError, "max_turns must be"),
    ({"world": "house", "max_turns": 0}, ValueError, "max_turns must be"),
    ({"world": "house", "max_turns": True}, ValueError, "max_turns must be"),
    ({"world": "house", "max_turns": 2.5}, ValueError, "max_turns must be"),
    ({"world": 5}, TypeError, "world= is a file, a packaged name or a World, not int"),
    ({"world": ["house"]}, TypeError, "not list"),
    ({"generate": [1]}, TypeError, "generate= is a mapping"),
    ({"generate": {"roms": 3}}, ValueError, "unknown knob 'roms'"),
    ({"generate": {"rooms": "x"}}, ValueError, "--rooms must be a whole number"),
    ({"world": "house", "infos": "goals"}, TypeError, "infos= is a list of names"),
    ({"world": "house", "render_mode": "human"}, ValueError, "render_mode must be None or 'ansi'"),
])
def test_the_gym_checks_its_arguments_in_the_constructor(kwargs, error, said):
    module("gymnasium", "gym")
    from tui_adventure.envs.env import AdventureEnv

    with pytest.raises(error, match=said.replace("(", r"\(").replace(")", r"\)").replace("'", "'")) as err:
        AdventureEnv(**kwargs)
    assert "\n" not in str(err.value)


def test_the_gym_keeps_a_turn_limit_it_was_given():
    module("gymnasium", "gym")
    from tui_adventure.envs.env import AdventureEnv

    env = AdventureEnv(world=str(TEST_WORLDS / "mini.yaml"), max_turns=2)
    env.reset()
    assert env.step("look")[3] is False and env.step("look")[3] is True
    with pytest.raises(TypeError, match="options\\['world'\\]"):
        env.reset(options={"world": 5})
