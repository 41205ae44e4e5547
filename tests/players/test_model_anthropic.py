"""Anthropic models (the ``[anthropic]`` extra) through the real ``anthropic`` SDK against the
scripted server's ``/v1/messages``: prompting, streaming, tool use, faults and records."""

import json

import pytest

from needs import module  # noqa: E402

module("anthropic", "anthropic")   # the [anthropic] extra: fails, never skips, without it

from clem_helpers import world as clem_world  # noqa: E402
from clemcore_check import evaluate, require_clemcore, transcribe_all  # noqa: E402
from fake_llm_server import DropMidStream, Malformed, Status, ToolCalls  # noqa: E402
from model_env import clean_config, in_loop, write_json  # noqa: E402
from tui_adventure.batches.episodes import play_episode  # noqa: E402
from tui_adventure.gamemaster.scoring import score_tree  # noqa: E402
from tui_adventure.gamemaster.episode import Episode, PlayerFailed, play_turn  # noqa: E402
from tui_adventure.players import make_player  # noqa: E402

SECRET = "sk-ant-test-0815"


@pytest.fixture
def config(monkeypatch, tmp_path, server):
    cwd, home = clean_config(monkeypatch, tmp_path)
    write_json(cwd / "model_registry.json", [{"model_name": "fake-claude", "model_id": "claude-test-1",
                                              "backend": "anthropic"}])
    write_json(home / ".clemcore" / "key.json", {"anthropic": {"api_key": SECRET, "base_url": server.root}})
    return cwd



def model(world, mode="text", **kw):
    return make_player("fake-claude", world, mode, **{"timeout": 5.0, "max_retries": 2, "retry_delay": 0.01, **kw})


@pytest.mark.slow
@in_loop
async def test_a_clembench_episode_through_the_messages_api(config, server, tmp_path):
    world = clem_world("home_deliver_three_basic_easy", 5)
    server.script(" > go hallway \n", "> done")
    root = tmp_path / "records"
    episode, _ = await play_episode(world, model(world), root)
    assert [t.reply for t in episode.turns] == ["> go hallway", "> done"]
    assert all(r.path == "/v1/messages" for r in server.requests)
    body = server.requests[1].body
    assert body["model"] == "claude-test-1" and body["temperature"] == 0 and body["max_tokens"] == 300
    assert "system" not in body and "tools" not in body
    # clemcore's encoding: every message's text as one text block, the episode's messages otherwise as they are
    assert body["messages"] == [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]}
                                for m in episode.messages[:3]]
    headers = server.requests[0].headers   # SDK 0.x sends x-api-key, 2.x a bearer token
    assert SECRET in (headers.get("x-api-key"), headers.get("authorization", "").removeprefix("Bearer "))
    require_clemcore()
    assert len(score_tree(root)) == 1 and len(transcribe_all(root)) == 1
    csv, _ = evaluate(root)
    assert "fake-claude" in csv.read_text()
    folder = next(root.rglob("instance_00005"))
    calls = json.loads((folder / "player_1.requests.json").read_text())["calls"]
    assert calls[0]["call"]["raw_response_obj"]["content"][0]["text"] == " > go hallway \n"
    assert calls[1]["call"]["manipulated_prompt_obj"] == body["messages"]
    assert not any(SECRET in p.read_text() for p in root.rglob("*.json"))


@pytest.mark.slow
@in_loop
async def test_streaming_and_tool_use(config, server, mini):
    player = model(mini, "tools")
    episode = Episode(mini)
    server.script(ToolCalls([("go", {"dir": "east"})], content="Heading east."),
                  ToolCalls([("take", {"obj": "red key"})]))
    chunks: list[str] = []
    await play_turn(episode, player, stream=chunks.append)
    await play_turn(episode, player, stream=chunks.append)
    assert [t.command for t in episode.turns] == ["go east", "take red key"]
    assert "Heading east." in "".join(chunks)
    first, second = server.requests[0].body, server.requests[1].body
    assert first["stream"] is True and first["tool_choice"] == {"type": "any"}
    tools = {t["name"]: t["input_schema"] for t in first["tools"]}
    assert "red key" in tools["take"]["properties"]["obj"]["enum"]
    assert first["system"].startswith("You are playing a text adventure game.")   # our own system prompt
    use = second["messages"][1]["content"][-1]
    assert use["type"] == "tool_use" and use["input"] == {"dir": "east"}
    assert second["messages"][2]["content"] == [{"type": "tool_result", "tool_use_id": use["id"],
                                                 "content": episode.turns[0].observation}]
    answer = episode.turns[-1].answer
    assert answer.tokens_in > 0 and answer.tokens_out > 0 and answer.latency > 0


@pytest.mark.slow
@pytest.mark.parametrize("fault", [Status(429), Status(529), Malformed(), DropMidStream()],
                         ids=["429", "529", "malformed", "dropped"])
@in_loop
async def test_passing_faults_are_retried(config, server, mini, fault):
    server.script(fault, "> go east")
    turn = await play_turn(Episode(mini), model(mini), stream=lambda text: None)
    assert turn.command == "go east" and len(server.requests) == 2


@in_loop
async def test_a_model_that_keeps_failing_ends_the_episode(config, server, mini, tmp_path):
    server.script(*[Status(500)] * 3)
    with pytest.raises(PlayerFailed, match="InternalServerError"):
        await play_episode(mini, model(mini, max_retries=1), tmp_path / "records")
    assert len(server.requests) == 2                     # the SDK's one retry, then the episode ends
    assert next((tmp_path / "records").rglob("error.json")).exists()


def test_a_server_that_refuses_the_connection_is_said_to_be_down(config, tmp_path):
    """Nothing listening where key.json points: said as for an OpenAI-compatible server, on the screen
    and in error.json, not as the SDK's "APIConnectionError: Connection error."."""
    import re
    import socket

    from conftest import TEST_WORLDS, adventure

    with socket.socket() as s:   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"
    write_json(tmp_path / "home" / ".clemcore" / "key.json", {"anthropic": {"api_key": SECRET, "base_url": url}})
    write_json(config / "model_registry.json", [{"model_name": "fake-claude", "model_id": "claude-test-1",
                                                 "backend": "anthropic", "max_retries": 1}])
    out = adventure("run", str(TEST_WORLDS / "mini.yaml"), "--player", "fake-claude", "--records", "r", cwd=config)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    said = f"connection refused at {url}: is the server running?"
    error = json.loads(next((config / "r").rglob("error.json")).read_text())
    assert re.fullmatch(re.escape(said) + r" \(after 1 retry\)", error["message"]), error
    shown = " ".join((out.stdout + out.stderr).split())   # the progress display wraps long lines
    assert said in shown and "Connection error" not in shown
