"""``adventure generate``: worlds that pass ``check``, carry their exact par and how they were made,
come out byte for byte the same from the same command, and keep held-out words held out."""

import re

import pytest
import yaml

from conftest import adventure
from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.generate import Knobs, KnobError, generate_world
from tui_adventure.generate.classic import draft, dump
from tui_adventure.generate.vocab import THEMES, split_of
from reference import bfs


@pytest.mark.slow
def test_the_same_command_gives_the_same_bytes_in_any_process(in_tmp):
    args = ["generate", "--count", "4", "--seed", "7", "--rooms", "10", "--objects", "24", "--goals", "3",
            "--theme", "castle"]
    one = adventure(*args, "--out", "a", env={"PYTHONHASHSEED": "1"}, subprocess=True)
    two = adventure(*args, "--out", "b", env={"PYTHONHASHSEED": "2"}, subprocess=True)
    assert one.returncode == two.returncode == 0, one.stderr
    a, b = sorted((in_tmp / "a").iterdir()), sorted((in_tmp / "b").iterdir())
    assert [p.name for p in a] == [p.name for p in b] and len(a) == 4
    assert all(x.read_bytes() == y.read_bytes() for x, y in zip(a, b))
    assert len({p.read_bytes() for p in a}) == 4          # four seeds, four worlds
    assert "wrote 4 worlds" in one.stdout


def test_every_world_is_a_normal_world_with_its_exact_par(in_tmp):
    out = adventure("generate", "--count", "5", "--seed", "3", "--rooms", "9", "--objects", "18", "--goals", "2",
                    "--locked", "1", "--out", "w")
    assert out.returncode == 0, out.stderr
    files = sorted((in_tmp / "w").glob("*.yaml"))
    checked = adventure("check", *map(str, files))
    assert checked.returncode == 0 and checked.stdout.count(": ok") == 5
    for path in files:
        world = load_world(path)
        doc = yaml.safe_load(path.read_text())
        made = doc["generated"]
        assert made["seed"] in range(3, 8) and made["knobs"]["rooms"] == 9 and made["knobs"]["locked"] == 1
        assert world.par == Planner(world).solve().par == made["features"]["par"]
        assert set(made["features"]) >= {"states_expanded", "locks_on_path", "lock_depth", "distractors",
                                          "branching", "carried_peak"}
        assert world.max_turns >= world.par and doc["intro"].startswith("Your task: ")
    script = adventure("script", str(files[0]), stdin="look\ninventory\n")
    assert script.returncode == 0 and "Exits:" in script.stdout


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_par_of_small_generated_worlds_equals_plain_breadth_first_search(seed):
    """The heuristic and pruning stay exact on what the generator makes (doors, locks, containers)."""
    knobs = Knobs(rooms=4, objects=8, goals=2, doors=2, locked=1, containers=1, supports=1).resolved()
    world = load_world_text(dump(draft(knobs, seed).doc), f"g{seed}.yaml")
    fast = Planner(world).solve()
    slow = bfs(Planner(world, shortcuts=False, max_nodes=2_000_000))
    assert fast.par == slow.par


@pytest.mark.slow
def test_par_ranges_are_honoured_or_refused_clearly(in_tmp):
    out = adventure("generate", "--count", "3", "--par", "14..16", "--out", "w")
    assert out.returncode == 0, out.stderr
    pars = [load_world(p).par for p in sorted((in_tmp / "w").glob("*.yaml"))]
    assert len(pars) == 3 and all(14 <= p <= 16 for p in pars)
    bad = adventure("generate", "--rooms", "2", "--objects", "6", "--goals", "1", "--par", "300..400",
                    "--out", "w2")   # small drafts: cheap to refuse
    assert bad.returncode == 2 and "no world with par in 300..400" in bad.stderr and "par ranged" in bad.stderr
    assert not (in_tmp / "w2").exists() or not any((in_tmp / "w2").iterdir())


@pytest.mark.parametrize("args, says", [
    (["--objects", "3"], "cannot hold"),
    (["--rooms", "0"], "--rooms must be from 1"),
    (["--doors", "40"], "at most"),
    (["--locked", "3", "--doors", "2"], "--locked 3"),
    (["--par", "9..3"], "from a smaller to a larger"),
    (["--theme", "moon"], "unknown theme 'moon'"),
    (["--inventory-limit", "2"], "clembench flavour"),
])
def test_knobs_that_cannot_make_a_world_are_one_clear_line(in_tmp, args, says):
    out = adventure("generate", "--out", "w", *args)
    assert out.returncode == 2 and says in out.stderr and "Traceback" not in out.stderr


def _nouns(doc: dict) -> set[str]:
    # doors and keys are every split's (the words of the rules, not of the theme)
    names = [o["name"] for o in doc["objects"].values() if "door" not in o["traits"] and not o["name"].endswith("key")]
    names += [r.get("name", rid.replace("_", " ")) for rid, r in doc["rooms"].items()]
    adjectives = {a for o in doc["objects"].values() for a in o.get("adjectives", [])}
    return {" ".join(w for w in n.split() if w not in adjectives and not w.isdigit()) for n in names}


def test_held_out_splits_never_share_a_word():
    train = set().union(*(_nouns(draft(Knobs(rooms=20, objects=60, goals=3, split="train").resolved(), s).doc)
                          for s in range(5)))
    test = set().union(*(_nouns(draft(Knobs(rooms=20, objects=60, goals=3, split="test").resolved(), s).doc)
                         for s in range(5)))
    assert train and test and not train & test
    assert all(split_of(w) == "test" for w in test if w in THEMES["house"].things)


def test_names_collide_only_with_an_adjective_to_tell_them_apart():
    doc = draft(Knobs(rooms=30, objects=200, goals=3).resolved(), 1).doc   # more things than nouns
    names = [o["name"] for o in doc["objects"].values()]
    assert len(names) == len(set(names))
    plain = [o for o in doc["objects"].values() if "adjectives" not in o and "door" not in o["traits"]]
    assert plain and all(len(o["name"].split()) <= 2 for o in plain)


@pytest.mark.slow
def test_an_impossible_range_raises_a_knob_error_in_the_library():
    with pytest.raises(KnobError, match="widen --par"):
        generate_world(Knobs(rooms=2, objects=6, goals=1), 0, par=(90, 99))


def test_yaml_text_has_no_python_specific_tags():
    text = dump(draft(Knobs().resolved(), 0).doc)
    assert "!!python" not in text and re.search(r"^rooms:$", text, re.M)


@pytest.mark.parametrize("seed", range(4))
def test_a_world_built_from_its_document_is_the_world_its_file_holds(seed):
    """What an env's reset builds (no YAML written and read back; unsolved unless its par is wanted) is the
    world ``adventure generate`` writes for the same knobs and seed."""
    from tui_adventure.generate import generated_world

    knobs = Knobs(rooms=6, objects=12, goals=2, theme="castle" if seed % 2 else "house")
    written = load_world_text(generate_world(knobs, seed).text, "w.yaml")
    solved, unsolved = generated_world(knobs, seed), generated_world(knobs, seed, solve=False)
    for world in (solved, unsolved):
        assert world.initial.facts == written.initial.facts
        assert [str(g) for g in world.goals] == [str(g) for g in written.goals]
        assert {e: vars(x) for e, x in world.entities.items()} == {e: vars(x) for e, x in written.entities.items()}
        assert (world.title, world.intro, world.start) == (written.title, written.intro, written.start)
    without_pos = lambda meta: {k: v for k, v in meta.items() if not k.endswith("_pos")}   # noqa: E731
    assert (solved.par, solved.max_turns, without_pos(solved.meta)) == (written.par, written.max_turns,
                                                                       without_pos(written.meta))
    assert unsolved.par is None and Planner(unsolved).solve().par == written.par
