"""Hostile inputs meet a bound and a clear message, never a hang, a crash or an OOM (issue 21).

Each command that could take memory runs in a subprocess under a 1 GB address-space cap and a
timeout, so a regression shows as a failure here, not as a dead machine. What could only block (a
FIFO, a device, a folder where a file belongs) runs in this process, bounded by the test's timeout.
"""

import json
import os
import resource
from pathlib import Path

import pytest

import conftest

MEMORY_CAP = 1024 * 1024 * 1024


def capped():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def adventure(*args, cwd=None, stdin="", timeout=60):
    return conftest.adventure(*args, cwd=cwd, stdin=stdin, timeout=timeout, preexec_fn=capped)


def laughs(levels: int, key: str) -> str:
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    return "\n".join(lines) + f"\n{key}: *l{levels - 1}\nrooms: {{a: {{}}}}\ngoal: [held(x)]\n"


@pytest.mark.slow
@pytest.mark.parametrize("key", ["start", "max_turns", "seed", "par", "title"])
def test_an_alias_bomb_is_refused_small_and_fast(tmp_path, key):
    world = tmp_path / "bomb.yaml"
    world.write_text(laughs(9, key))           # 10^9 values if expanded
    assert world.stat().st_size < 1024
    for command in (["check"], ["solve"], ["script"]):
        out = adventure(*command, str(world))
        assert out.returncode == 1, out.stderr
        text = out.stdout + out.stderr
        assert "expand to more than 10,000 values" in text and len(text) < 2000


@pytest.mark.slow
def test_an_alias_bomb_inside_an_imported_instance_never_reaches_the_records(tmp_path):
    from tui_adventure.instances.packaged import INSTANCES

    first = json.loads(INSTANCES.read_text())["experiments"][0]   # one shipped instance, imported
    (tmp_path / "instances.json").write_text(json.dumps({"experiments": [
        {**first, "game_instances": first["game_instances"][:1]}]}))
    out = adventure("import", "clembench", str(tmp_path / "instances.json"), "--out", str(tmp_path / "imp"))
    assert out.returncode == 0
    source = next((tmp_path / "imp").rglob("instance_00000.yaml"))
    bomb = laughs(9, "x").split("\nx:")[0]
    text = source.read_text().replace("clembench:\n", bomb.replace("\n", "\n") + "\nclembench:\n  bomb: *l8\n", 1)
    hostile = tmp_path / "hostile.yaml"
    hostile.write_text(text)
    run = adventure("run", str(hostile), "--player", "oracle", "--records", str(tmp_path / "r"))
    assert run.returncode == 1 and "expand to more than" in run.stdout + run.stderr
    assert not any(p.stat().st_size > 1_000_000 for p in (tmp_path / "r").rglob("*") if p.is_file())


@pytest.mark.slow
def test_deep_nesting_is_an_error_not_a_segfault(tmp_path):
    deep = tmp_path / "deep.yaml"
    deep.write_text("start: " + "[" * 100_000 + "]" * 100_000 + "\n")
    for command in ("check", "solve", "script"):
        out = adventure(command, str(deep))
        assert out.returncode == 1 and "nested too deeply" in out.stdout + out.stderr


def test_long_values_are_cut_in_messages(tmp_path):
    world = tmp_path / "long.yaml"
    world.write_text("start: " + "x" * 200_000 + "\nrooms: {a: {}}\ngoal: [held(x)]\n")
    out = adventure("check", str(world))
    assert out.returncode == 1 and "characters left out" in out.stdout and len(out.stdout) < 5000


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_world_that_is_not_a_regular_file_never_blocks(tmp_path, kind):
    if kind == "fifo":
        target = tmp_path / "pipe.yaml"
        os.mkfifo(target)
    elif kind == "device":
        target = Path("/dev/zero")
    else:
        target = tmp_path
    for command in ("check", "solve", "script", "play", "repl"):
        out = conftest.adventure(command, str(target))
        assert out.returncode == 1 and "not a regular file" in out.stdout + out.stderr


def test_a_fifo_in_the_saves_folder_never_blocks_restore(tmp_path):
    from tui_adventure.catalog import open_world
    from tui_adventure.keyboard.history import world_key

    saves = tmp_path / "saves" / world_key(open_world("house"))
    saves.mkdir(parents=True)
    os.mkfifo(saves / "house-trap.json")
    out = conftest.adventure("repl", "house", cwd=tmp_path, stdin="saves\nrestore trap\nrestore house-trap\nlook\n")
    assert out.returncode == 0 and "Hallway" in out.stdout


def test_a_fifo_named_by_the_records_never_blocks_score_or_replay(tmp_path):
    root = tmp_path / "records"
    assert conftest.adventure("run", "tutorial", "--player", "oracle", "--records", str(root)).returncode == 0
    episode = next(root.rglob("instance_00000"))
    (episode / "tui_adventure.json").unlink()
    os.mkfifo(episode / "tui_adventure.json")
    out = conftest.adventure("score", str(root))
    assert out.returncode == 0 and "wrote 1 scores.json" in out.stdout
    replay = conftest.adventure("replay", str(episode))
    assert replay.returncode == 1 and "not a regular file" in replay.stderr


def test_max_turns_is_capped_with_a_message(tmp_path):
    from conftest import TEST_WORLDS

    world = tmp_path / "long.yaml"
    world.write_text((TEST_WORLDS / "mini.yaml").read_text().replace("max_turns: 20", "max_turns: 1000000"))
    out = adventure("check", str(world))
    assert out.returncode == 1 and "max_turns 1000000 is more than 1,000" in out.stdout


@pytest.mark.slow
@pytest.mark.timeout(600)   # a hang guard, not a speed test
def test_a_container_chain_800_deep_is_checked_and_solved_quickly(tmp_path):
    n = 800
    lines = ["start: hall", "rooms: {hall: {}}", "objects:", "  c0: {traits: [container], at: hall}"]
    lines += [f"  c{i}: {{traits: [container, takeable], in: c{i - 1}}}" for i in range(1, n)]
    lines += [f"  gem: {{traits: takeable, in: c{n - 1}}}", "goal: [held(gem)]"]
    world = tmp_path / "chain.yaml"
    world.write_text("\n".join(lines) + "\n")
    out = adventure("check", str(world), timeout=120)
    assert out.returncode == 0 and "par 1" in out.stdout


def test_deep_block_nesting_is_refused_as_well(tmp_path):
    """Block collections nest without brackets: by compact entries on one line, and by indentation
    (a mapping's sequence may share its key's column). The guard that skips the event parse must
    not wave either through."""
    from tui_adventure.engine.yamlpos import DEPTH_LIMIT, SourceError, _depth_bound, load_yaml

    compact = "- " * 300 + "x\n"
    stairs = "".join(f"{' ' * (2 * i)}k{i}:\n{' ' * (2 * i)}- " + "\n" for i in range(150)) + " " * 300 + "x\n"
    indented = "".join(f"{' ' * i}-\n" for i in range(300)) + " " * 300 + "x\n"
    for text in (compact, stairs, indented):
        assert _depth_bound(text) >= DEPTH_LIMIT
        with pytest.raises(SourceError, match="nested too deeply"):
            load_yaml(text, "deep.yaml")
    assert _depth_bound("a:\n  b:\n  - c: [1, 2]\n") < DEPTH_LIMIT   # a world's nesting: no event parse
