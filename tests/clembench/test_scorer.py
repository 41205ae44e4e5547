"""Our scorer gives upstream's numbers on upstream's own records."""

import json
import math

import pytest

from conftest import records_example
from tui_adventure.gamemaster.scoring import score_interactions

EXAMPLE = records_example()
EPISODES = sorted(EXAMPLE.rglob("interactions.json"))


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or abs(a - b) < 1e-9
    return a == b


@pytest.mark.parametrize("path", EPISODES, ids=[p.parent.parent.parent.parent.name for p in EPISODES])
def test_upstream_scores_from_upstream_records(path):
    want = json.loads((path.parent / "scores.json").read_text())
    got = score_interactions(json.loads(path.read_text()))
    for turn, scores in want["turn scores"].items():
        assert {k: got["turn scores"][turn][k] for k in scores} == scores
    for key, value in want["episode scores"].items():
        assert same(got["episode scores"][key], value), key


# -- our own keys -------------------------------------------------------------------
def _play(world_, player, root):
    import asyncio

    from tui_adventure.batches.episodes import play_episode

    asyncio.run(play_episode(world_, player, root))
    return next(root.rglob("interactions.json")).parent


def _upstream_keys_first(scores: dict, example: dict) -> None:
    for turn in scores["turn scores"].values():
        assert list(turn)[:len(example["turn scores"]["0"])] == list(example["turn scores"]["0"])
    assert list(scores["episode scores"])[:len(example["episode scores"])] == list(example["episode scores"])


def test_progress_rate_of_every_turn_for_an_imported_world(tmp_path):
    from clem_helpers import INSTANCES, world
    from tui_adventure.gamemaster.scoring import score_tree, world_finder
    from tui_adventure.players.programmatic import ScriptedPlayer

    w = world("home_deliver_three_basic_easy", 0)
    replies = ["> take pillow", "> look", "> go hallway", "> go bedroom", "> go hallway", "> go kitchen",
               "> take plate", "> go living room", "> put plate on table", "> put pillow on table",
               "> take book", "> put book on table", "> done"]
    folder = _play(w, ScriptedPlayer(replies), tmp_path / "records")
    assert score_tree(tmp_path / "records", find_world=world_finder(INSTANCES)) == [folder / "scores.json"]
    scores = json.loads((folder / "scores.json").read_text())
    _upstream_keys_first(scores, json.loads(next(EXAMPLE.rglob("scores.json")).read_text()))
    progress = [t["progress_rate"] for t in scores["turn scores"].values()]
    par = scores["episode scores"]["par_exact"]
    # upstream's optimal_turns is 10; ours is exact (upstream's put works without taking the book first)
    assert (par, scores["episode scores"]["par_given"]) == (8, 10)
    # a step of the optimal plan is worth 1/par; a useless command is worth nothing, a detour costs
    assert progress[:4] == [0.125, 0.125, 0.25, 0.125]
    assert progress[-2:] == [1.0, 1.0] and scores["episode scores"]["progress_rate"] == 1.0
    assert all(0.0 <= p <= 1.0 for p in progress)


def test_progress_rate_for_a_native_world_and_none_without_a_world(tmp_path):
    from conftest import WORLDS
    from tui_adventure.gamemaster.scoring import score_interactions, score_tree
    from tui_adventure.engine.loading.loader import load_world
    from tui_adventure.players import make_player

    w = load_world(WORLDS / "house.yaml")
    folder = _play(w, make_player("oracle", w), tmp_path / "records")
    score_tree(tmp_path / "records")           # instance.json names the world file: found without help
    episode = json.loads((folder / "scores.json").read_text())["episode scores"]
    turns = json.loads((folder / "scores.json").read_text())["turn scores"]
    assert episode["Success"] == 1 and episode["progress_rate"] == 1.0 and episode["par_exact"] == 21
    assert episode["turns_over_par"] == len(turns) - 21      # no par in the file: the exact one counts
    assert all("progress_rate" in t for t in turns.values())
    bare = score_interactions(json.loads((folder / "interactions.json").read_text()))
    assert "progress_rate" not in bare["episode scores"] and "progress_rate" not in bare["turn scores"]["0"]
    assert bare["episode scores"]["par_exact"] is None


def test_an_imported_world_file_is_found_by_the_records_pointer(tmp_path):
    """Played from its world file (``adventure import``), an imported instance needs no definitions to score."""
    import yaml

    from clem_helpers import INSTANCES, instances
    from tui_adventure.instances.convert import document, load_definitions
    from tui_adventure.gamemaster.scoring import score_tree
    from tui_adventure.instances.convert import load_world_file as load_world
    from tui_adventure.players import make_player

    inst = instances()[("home_deliver_three_basic_hard", 2)]
    header, doc = document(inst, "home_deliver_three_basic_hard", load_definitions(INSTANCES, inst))
    path = tmp_path / "instance_00002.yaml"
    path.write_text(header + "\n" + yaml.safe_dump(doc, sort_keys=False))
    w = load_world(path)
    folder = _play(w, make_player("oracle", w), tmp_path / "records")
    score_tree(tmp_path / "records")
    scores = json.loads((folder / "scores.json").read_text())
    assert scores["episode scores"]["Success"] == 1 and scores["episode scores"]["progress_rate"] == 1.0
    assert scores["episode scores"]["par_given"] == inst["optimal_turns"]
    assert [t["progress_rate"] for t in scores["turn scores"].values()][-1] == 1.0
