"""A records tree as training lines: the conversation as sent, the tools offered, rewards, scores."""

import asyncio
import io
import json

import pytest

from fake_llm_server import ToolCalls
from model_env import clean_config, in_loop, write_json
from tui_adventure.batches.episodes import run_all
from tui_adventure.gamemaster.scoring import score_root
from tui_adventure.export.trajectories import export


def lines(root):
    out = io.StringIO()
    report = export(root, out)
    return [json.loads(line) for line in out.getvalue().splitlines()], report


def test_a_programs_episodes_become_alternating_messages_with_rewards(tmp_path):
    root = tmp_path / "records"
    asyncio.run(run_all(["house", "tutorial"], "oracle", root, jobs=1))
    score_root(root)
    got, report = lines(root)
    assert report.written == 2 and not report.left_out
    house = next(t for t in got if t["game"] == "house")
    roles = [m["role"] for m in house["messages"]]
    assert roles[0] == "user" and roles[1] == "assistant" and roles[:4] == ["user", "assistant"] * 2
    assert sum(house["rewards"]) == 3 and len(house["rewards"]) == len(house["messages"]) // 2
    assert house["scores"]["Success"] == 1 and house["tools"] == [] and house["player"] == "oracle"
    (root / "oracle" / "tutorial" / "tutorial" / "instance_00000" / "completed.json").unlink()
    got, report = lines(root)
    assert report.written == 1 and report.left_out == {"incomplete": 1}


@in_loop
async def test_a_models_tool_calls_and_the_tools_offered_are_kept(monkeypatch, tmp_path, server):
    cwd, _ = clean_config(monkeypatch, tmp_path)
    write_json(cwd / "model_registry.json", [{"model_name": "fake-gpt", "model_id": "m", "backend": "openai_compatible",
                                              "base_url": server.url}])
    server.script(ToolCalls([("act", {"command": "take letter"})]), ToolCalls([("act", {"command": "done"})]))
    root = tmp_path / "records"
    await run_all(["tutorial"], "fake-gpt", root, jobs=1, mode="tool")
    (line,), _ = lines(root)
    assert line["run"] == "fake-gpt--tool" and line["mode"] == "tool" and line["player"] == "fake-gpt--tool"
    assert [t["function"]["name"] for t in line["tools"]] == ["act"]
    roles = [m["role"] for m in line["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert line["messages"][2]["tool_calls"][0]["function"]["name"] == "act"
    assert line["messages"][-1]["tool_calls"][0]["function"]["arguments"] == '{"command": "done"}'


def test_the_command_writes_a_file_and_says_what_it_left_out(in_tmp):
    from conftest import adventure

    assert adventure("run", "tutorial", "house", "--player", "oracle", "--records", "r").returncode == 0
    (in_tmp / "r" / "oracle" / "house" / "house" / "instance_00000" / "completed.json").unlink()
    out = adventure("export", "trajectories", "r", "--out", "t.jsonl")
    assert out.returncode == 0 and "1 trajectory from 1 episode exported (1 incomplete left out) to t.jsonl" in out.stderr
    (line,) = [json.loads(x) for x in (in_tmp / "t.jsonl").read_text().splitlines()]
    assert line["game"] == "tutorial" and line["messages"][0]["role"] == "user"
    assert adventure("export", "trajectories", "nowhere").returncode == 1


@pytest.mark.slow
def test_each_seat_of_a_world_of_several_players_is_its_own_trajectory(tmp_path):
    """Two seats are two agents: each its own messages and rewards, named by episode and seat (issue 36)."""
    import json as _json

    from conftest import TEST_WORLDS

    root = tmp_path / "records"
    summary = asyncio.run(run_all([str(TEST_WORLDS / "scene_two.yaml")], "oracle,random:3", root, jobs=1))
    assert summary.played == 1
    got, report = lines(root)
    assert report.written == 2 and report.episodes == 1
    ava, bo = got
    assert (ava["seat"], bo["seat"]) == ("Player 1", "Player 2") and ava["seats"] == bo["seats"] == 2
    assert ava["id"].endswith("/instance_00000/player_1") and bo["id"].endswith("/instance_00000/player_2")
    assert (ava["player"], bo["player"]) == ("oracle", "random-3")
    interactions = _json.loads(next(root.rglob("interactions.json")).read_text())
    moves = {"Player 1": [], "Player 2": []}
    for turn in interactions["turns"]:
        reply = next(e for e in turn if e["action"]["type"] == "get message")
        moves[reply["from"]].append(reply["action"]["content"])
    for line in (ava, bo):
        said = [m["content"] for m in line["messages"] if m["role"] == "assistant"]
        assert said == moves[line["seat"]] and len(line["rewards"]) == len(said)
    assert ava["rewards"] and bo["rewards"]
    assert len(ava["rewards"]) + len(bo["rewards"]) == len(interactions["turns"])


@pytest.mark.parametrize("below", ["oracle", "oracle/house", "oracle/house/house/instance_00000"])
def test_one_runs_folder_or_deeper_exports_its_episodes_as_the_records_root_does(in_tmp, below):
    """`adventure export trajectories records/oracle` wrote 0 trajectories: the names come from above ROOT."""
    from conftest import adventure

    assert adventure("run", "tutorial", "house", "--player", "oracle", "--records", "r").returncode == 0
    assert adventure("score", "r").returncode == 0
    assert adventure("export", "trajectories", "r", "--out", "all.jsonl").returncode == 0
    out = adventure("export", "trajectories", f"r/{below}", "--out", "some.jsonl")
    game = below.split("/")[1] if "/" in below else None
    expected = [line for line in (in_tmp / "all.jsonl").read_text().splitlines()
                if game is None or json.loads(line)["game"] == game]
    n = len(expected)
    assert out.returncode == 0 and f"{n} trajector{'y' if n == 1 else 'ies'} from {n} episode" in out.stderr
    assert (in_tmp / "some.jsonl").read_text().splitlines() == expected
