"""adventure export clemgame without clemcore's runner: what the game folder holds, what is refused,
and the records of such a game as our readers take them (clem run itself: test_clemcore_full.py)."""

import json

import pytest

from clemcore_check import scores_layout
from conftest import TEST_WORLDS, WORLDS, adventure
from tui_adventure.records.files import read_episode, write_json
from tui_adventure.gamemaster.scoring import score_tree


def _instances(game):
    doc = json.loads((game / "in" / "instances.json").read_text())
    return {(e["name"], i["game_id"]): i for e in doc["experiments"] for i in e["game_instances"]}


def test_the_game_folder_names_every_world_and_imports_our_master(in_tmp):
    gen = adventure("generate", "--count", "2", "--seed", "5", "--rooms", "3", "--objects", "4", "--goals", "2",
                    "--out", "gen", cwd=in_tmp)
    assert gen.returncode == 0, gen.stderr
    out = adventure("export", "clemgame", "clembench/home_deliver_three_planning_hard/3", "house",
                    str(WORLDS / "house.yaml"), "gen", str(TEST_WORLDS / "scene_bridge.yaml"), "--out", "games",
                    cwd=in_tmp)
    assert out.returncode == 0, out.stderr
    game = in_tmp / "games" / "tuiadventure"
    assert "clem run -g tuiadventure" in out.stdout
    spec = json.loads((game / "clemgame.json").read_text())
    assert (spec["game_name"], spec["players"], spec["roles"]) == ("tuiadventure", 1, ["Adventurer"])
    master = (game / "master.py").read_text()
    assert "from tui_adventure.clemgame.master import" in master and len(master.splitlines()) < 10
    instances = _instances(game)
    assert len(instances) == 6
    planning = instances[("home_deliver_three_planning_hard", 3)]
    assert planning["world"] == "clembench/home_deliver_three_planning_hard/3" and planning["variant"] == "plan"
    assert planning["initial_state"]    # upstream's own instance, as our records keep it
    house = [i for (e, _), i in instances.items() if e == "house"]
    assert sorted(i["game_id"] for i in house) == [0, 1]   # the same world twice: the second moves up
    assert all(i["world"] == str((WORLDS / "house.yaml").resolve()) for i in house)
    generated = [i for i in instances.values() if "/gen/" in i["world"]]
    assert len(generated) == 2 and all(i["par"] for i in generated)


def test_a_world_that_cannot_be_an_instance_is_refused_in_one_line(in_tmp):
    out = adventure("export", "clemgame", "house", str(TEST_WORLDS / "scene_voice.yaml"), "--out", "games",
                    cwd=in_tmp)
    assert out.returncode == 1 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "scene_voice.yaml: cannot be a clemgame instance" in out.stderr and "speaks through a model" in out.stderr
    assert "Traceback" not in out.stderr and not (in_tmp / "games").exists()
    mixed = adventure("export", "clemgame", "house", str(TEST_WORLDS / "scene_two.yaml"), "--out", "games",
                      cwd=in_tmp)
    assert mixed.returncode == 1 and "one number of players" in mixed.stderr
    assert len(mixed.stderr.strip().splitlines()) == 1


def test_the_name_follows_the_safe_name_rule_and_what_clemcore_can_find(in_tmp):
    for name, says in (("../up", "cannot be a folder name"), (".hidden", "cannot be a folder name"),
                       ("a/b", "cannot be a folder name"), ("docs", "never looks for games"),
                       ("123", "reads it as JSON")):
        out = adventure("export", "clemgame", "house", "--out", "games", "--name", name, cwd=in_tmp)
        assert out.returncode == 1 and says in out.stderr and len(out.stderr.strip().splitlines()) == 1, (name, out)
    assert not (in_tmp / "up").exists() and not (in_tmp / "games").exists()
    ok = adventure("export", "clemgame", "house", "--out", "games", "--name", "my-game_2", cwd=in_tmp)
    assert ok.returncode == 0 and (in_tmp / "games" / "my-game_2" / "clemgame.json").is_file()


def test_two_seats_make_a_game_of_two_players(in_tmp):
    out = adventure("export", "clemgame", str(TEST_WORLDS / "scene_two.yaml"), "--out", "games", cwd=in_tmp)
    assert out.returncode == 0, out.stderr
    spec = json.loads((in_tmp / "games" / "tuiadventure" / "clemgame.json").read_text())
    assert spec["players"] == 2 and spec["roles"] == ["Adventurer", "Adventurer"]


def test_scores_json_opens_with_clemcores_own_layout(tmp_path):
    """clemcore's GameScorer copies meta, players and player_models from the interactions around the
    scores; ours does the same, and the scores themselves stay as they were."""
    out = adventure("run", "clembench/home_deliver_three_basic_easy/2", "--player", "oracle", "--records",
                    str(tmp_path))
    assert out.returncode == 0, out.stderr
    [episode] = [p.parent for p in tmp_path.rglob("interactions.json")]
    interactions = json.loads((episode / "interactions.json").read_text())
    score_tree(tmp_path)
    ours = json.loads((episode / "scores.json").read_text())
    theirs = scores_layout(interactions)
    assert [k for k in ours if k in theirs] == list(theirs)
    assert list(ours) == ["meta", "players", "turn scores", "episode scores", "player_models"]
    assert {k: ours[k] for k in ("meta", "players", "player_models")} == \
        {k: theirs[k] for k in ("meta", "players", "player_models")}
    assert ours["meta"]["game_name"] == "adventuregame" and ours["players"]["Player 1"]["model_name"] == "oracle"
    assert ours["episode scores"]["Main Score"] == 100.0


def test_records_of_an_exported_instance_find_their_world(tmp_path):
    """clemcore copies the exported instance into the records: replay and scoring find the world by its
    ``world`` (a packaged name here), with no pointer file of ours."""
    out = adventure("run", "clembench/home_deliver_three_basic_easy/4", "--player", "oracle", "--records",
                    str(tmp_path))
    assert out.returncode == 0, out.stderr
    [episode] = [p.parent for p in tmp_path.rglob("interactions.json")]
    (episode / "tui_adventure.json").unlink()
    instance = json.loads((episode / "instance.json").read_text())
    write_json(episode / "instance.json", {**instance, "world": "clembench/home_deliver_three_basic_easy/4"})
    recorded = read_episode(episode)
    assert recorded.world.title == "home_deliver_three_basic_easy #4" and recorded.replies[-1] == "> done"
    score_tree(tmp_path)
    assert json.loads((episode / "scores.json").read_text())["episode scores"]["progress_rate"] == 1.0


@pytest.mark.parametrize("name, says", [
    ("", "--name is empty: a game name is ASCII letters"),
    ("x" * 300, "--name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (300 characters) cannot be a folder name"),
    ("-x", "--name '-x' cannot be a folder name: a game name is ASCII letters"),
    ("café", "--name 'café' cannot be a folder name"),
    ("game\n", "--name 'game\\n' cannot be a folder name"),
    ("..", "--name '..' cannot be a folder name"),
])
def test_a_game_name_that_cannot_be_is_one_line_saying_what_can(in_tmp, capsys, name, says):
    from tui_adventure.cli.main import main

    assert main(["export", "clemgame", "house", "--out", "games", f"--name={name}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"adventure export: {says}") and err.count("\n") == 1 and len(err) < 300, err
    assert "a game name is ASCII letters, digits" in err
    assert not (in_tmp / "games").exists()
