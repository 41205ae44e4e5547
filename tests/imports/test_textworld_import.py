"""`adventure import textworld` on a game tw-make made once (tests/data/textworld/README.md).

The tests read only the committed .json: TextWorld is never needed here.
"""

import copy
import json
import shutil

import pytest

from conftest import DATA, adventure
from tui_adventure.engine.game import Game
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.textworld import TextWorldError, convert, import_game, load_game

GAME = DATA / "textworld" / "tw_small.json"
DETOUR = DATA / "textworld" / "tw_detour.json"
TW_WALKTHROUGH = ["open box", "take type 9 passkey from box", "go north", "unlock type 9 portal with type 9 passkey",
                  "open type 9 portal", "go east", "take blender from board", "put blender on saucepan"]
# tw_detour's walkthrough goes north, north, west, south where north, west will do; this plan also
# wins in TextWorld 1.7.0 itself (with `take X from Y` for our `take X`), checked when it was made
DETOUR_PLAN = ["take latchkey", "unlock gateway with latchkey", "open gateway", "go north", "go west", "take key",
               "go east", "lock box with key"]


@pytest.fixture(scope="module")
def game():
    return load_game(GAME)


def test_the_committed_game_is_small_and_what_the_tests_expect(game):
    assert GAME.stat().st_size < 100_000
    assert game["metadata"]["walkthrough"] == TW_WALKTHROUGH


def test_rooms_doors_keys_containers_supports_and_goal(game):
    conv = convert(game, "tw_small")
    world = conv.world
    assert conv.warnings == []
    assert set(world["rooms"]) == {"cookery", "shower", "pantry", "parlor"} and world["start"] == "pantry"
    assert world["rooms"]["shower"]["exits"] == {"east": {"to": "cookery", "door": "type_9_portal"},
                                                 "south": "pantry"}
    portal = world["objects"]["type_9_portal"]
    assert portal["traits"] == ["door", "openable", "lockable"] and portal["locked"] is True
    assert portal["key"] == "type_9_passkey" and "at" not in portal
    assert world["objects"]["box"]["traits"] == ["container", "openable", "lockable"]
    assert world["objects"]["type_9_passkey"]["in"] == "box"
    assert world["objects"]["blender"]["on"] == "board" and "support" in world["objects"]["saucepan"]["traits"]
    assert world["objects"]["keycard"]["held"] is True
    assert world["goal"] == ["at(player, cookery)", "at(saucepan, cookery)", "on(blender, saucepan)"]
    assert conv.tw_commands == TW_WALKTHROUGH and conv.commands == TW_WALKTHROUGH


@pytest.mark.parametrize("source, rooms, objects, goals, par, steps", [
    (GAME, 4, 10, 3, 8, 8),     # and one door, counted apart
    (DETOUR, 6, 12, 4, 8, 10),
])
def test_cli_import_then_check_script_and_solve_agree(tmp_path, source, rooms, objects, goals, par, steps):
    out = tmp_path / "small.yaml"
    run = adventure("import", "textworld", str(source), "--out", str(out))
    assert run.returncode == 0, run.stderr
    solution = tmp_path / "small.txt"
    walkthrough = load_game(source)["metadata"]["walkthrough"]
    assert len(walkthrough) == steps and solution.read_text() == "".join(c + "\n" for c in walkthrough)
    lines = run.stdout.splitlines()
    assert lines[0].startswith(f"wrote {out} ({rooms} rooms, {objects} objects, 1 door,")
    assert lines[1] == f"wrote {solution} (TextWorld's walkthrough, {steps} commands)"
    assert lines[2:] == [f"par {par}; TextWorld's walkthrough {steps}"]

    check = adventure("check", str(out))
    assert check.returncode == 0
    assert check.stdout.startswith(f"{out}: ok ({rooms} rooms, {objects} objects, 1 door, {goals} goals, par {par})")

    replayed = [json.loads(x) for x in adventure("script", str(out), "--commands", str(solution), "--jsonl")
                .stdout.splitlines()]
    assert len(replayed) == steps + 1 and all(s["fail"] is None for s in replayed[1:])
    assert replayed[-1]["done"] is True and len(replayed[-1]["goals_achieved"]) == goals
    assert not any(s["done"] for s in replayed[1:-1])

    solved = json.loads(adventure("solve", str(out), "--json").stdout)
    assert solved["optimal"] and solved["par"] == par <= steps


def test_par_below_a_walkthrough_that_takes_a_detour(tmp_path):
    imported = import_game(DETOUR, tmp_path / "detour.yaml")
    assert imported.par == 8 < len(imported.converted.tw_commands) == 10 == imported.walkthrough_wins_at
    g = Game(load_world(imported.world_path))
    assert [g.step(c).fail for c in DETOUR_PLAN] == [None] * 8 and g.all_goals_achieved()


def test_import_game_replays_the_walkthrough_and_solves(tmp_path):
    imported = import_game(GAME, tmp_path / "w.yaml")
    assert imported.par == 8 and imported.par_note == "" and imported.walkthrough_wins_at == 8
    world = load_world(imported.world_path)
    g = Game(world)
    for command in imported.solution_path.read_text().splitlines():
        assert g.step(command).fail is None
    assert g.all_goals_achieved() and world.game == "w"


def test_default_output_beside_the_game_and_a_folder_as_out(tmp_path):
    game = tmp_path / "tw_small.json"
    shutil.copy(GAME, game)
    run = adventure("import", "textworld", str(tmp_path / "tw_small.z8"))   # tw-make prints the .z8
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "tw_small.yaml").is_file() and (tmp_path / "tw_small.txt").is_file()
    (tmp_path / "worlds").mkdir()
    run = adventure("import", "textworld", str(game), "--out", str(tmp_path / "worlds"),
                    "--solution", str(tmp_path / "sol" / "walk.txt"))
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "worlds" / "tw_small.yaml").is_file() and (tmp_path / "sol" / "walk.txt").is_file()
    assert not (tmp_path / "worlds" / "tw_small.txt").exists()


@pytest.mark.parametrize("content, says", [
    ("not json {", "not JSON (line 1, column 1: Expecting value)"),
    (b"\xff\xfe\x00", "not UTF-8 text"),
    ("[1, 2]", "not a TextWorld game (the file holds a JSON list"),
    ('{"instances": []}', "not a TextWorld game (no 'world' or 'infos' key"),
    ('{"world": [], "infos": {}}', "not a TextWorld game ('infos' is not a list"),
    ('{"world": [{"name": "at", "arguments": [{"name": "x", "type": "o"}]}], "infos": []}',
     "names 'x', which 'infos' does not describe"),
])
def test_bad_files_are_one_clear_line(tmp_path, content, says):
    bad = tmp_path / "bad.json"
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content)
    run = adventure("import", "textworld", str(bad))
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"adventure import textworld: {bad}: ") and says in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


def test_a_folder_or_a_missing_file(tmp_path):
    run = adventure("import", "textworld", str(tmp_path))
    assert run.returncode == 1 and run.stderr == f"adventure import textworld: {tmp_path}: is a folder, not a" \
        " TextWorld game file (GAME.json, written by tw-make)\n"
    run = adventure("import", "textworld", str(tmp_path / "nope.json"))
    assert run.returncode == 1 and "no such file" in run.stderr and "Traceback" not in run.stderr
    assert adventure("import", "textworld").returncode == 2
    assert adventure("import", "clembench").returncode == 2   # --out is still required there


def test_a_game_that_does_not_fit_is_reported_not_raised(game, tmp_path):
    broken = copy.deepcopy(game)
    broken["world"] = [p for p in broken["world"] if not (p["name"] == "at" and p["arguments"][0]["name"] == "P")]
    path = tmp_path / "noplayer.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(TextWorldError, match="no at\\(P, room\\) fact says where the player starts"):
        import_game(path)
    assert not path.with_suffix(".yaml").exists()
    broken = copy.deepcopy(game)
    for q in broken["quests"]:
        q["win_events"] = []
    with pytest.raises(TextWorldError, match="nothing to win"):
        convert(broken)
    cooking = copy.deepcopy(game)   # tw-cooking's goals: fried, sliced, consumed, ...
    cooking["quests"][0]["win_events"][0]["condition"]["preconditions"] = [_prop("fried", "o_0")]
    with pytest.raises(TextWorldError, match="win conditions use fried, which the classic ruleset has no"):
        convert(cooking)


def test_out_may_not_overwrite_the_game(tmp_path):
    game = tmp_path / "g.json"
    shutil.copy(GAME, game)
    with pytest.raises(TextWorldError, match="is the game file itself"):
        import_game(game, game)
    with pytest.raises(TextWorldError, match="would overwrite each other"):
        import_game(game, tmp_path / "w.yaml", tmp_path / "w.yaml")


def _prop(name, *args):
    return {"name": name, "arguments": [{"name": a, "type": a[0]} for a in args]}


def test_a_keyless_locked_thing_gets_a_key_nobody_can_hold(game, tmp_path):
    changed = copy.deepcopy(game)
    changed["world"] = [p for p in changed["world"] if p["name"] != "match" or p["arguments"][1]["name"] != "c_1"]
    conv = convert(changed)
    locker = conv.world["objects"]["cake_scented_locker"]
    key = conv.world["objects"][locker["key"]]
    assert "takeable" not in key["traits"] and not key.get("held")
    path = tmp_path / "keyless.json"
    path.write_text(json.dumps(changed))
    assert import_game(path).par == 8


def test_a_quest_that_begins_another_is_not_a_second_goal(game):
    changed = copy.deepcopy(game)
    first = copy.deepcopy(changed["quests"][0])
    first["commands"] = TW_WALKTHROUGH[:2]
    first["win_events"][0]["condition"]["preconditions"] = [_prop("in", "k_0", "I")]
    changed["quests"].insert(0, first)
    conv = convert(changed)
    assert conv.world["goal"] == convert(game).world["goal"] and conv.commands == TW_WALKTHROUGH
    assert conv.warnings and "begins another's" in conv.warnings[0]
