"""Model-voiced characters against the scripted fake server, through the real openai SDK: the model's
line joins the turn, its tools change the world only when their conditions hold, and every call is
in the records with its arguments and result."""

from __future__ import annotations

import json

import pytest

from conftest import TEST_WORLDS, adventure
from fake_llm_server import FakeLLMServer, ToolCalls
from model_env import MODEL_KEY, clean_config, in_loop, write_json

from tui_adventure.engine.loading.loader import load_world, load_world_text
from tui_adventure.engine.planning.planner import Planner
from tui_adventure.engine.yamlpos import SourceErrors
from tui_adventure.gamemaster.episode import Episode, PlayerFailed, play_turn
from tui_adventure.gamemaster.voices import Voices
from reference import bfs

VOICE = TEST_WORLDS / "scene_voice.yaml"


class Lines:
    """A player that types the given lines."""

    name = "typist"

    def __init__(self, *lines: str) -> None:
        self.lines = list(lines)

    async def reply(self, episode, stream=None) -> str:
        return self.lines.pop(0)


def registry(monkeypatch, tmp_path, server):
    cwd, _ = clean_config(monkeypatch, tmp_path)
    write_json(cwd / "model_registry.json", [{"model_name": "warden-model", "model_id": "qwen-test",
                                              "backend": "openai_compatible", "base_url": server.url,
                                              "max_retries": 1}])
    write_json(cwd / "key.json", {"openai_compatible": {"api_key": MODEL_KEY}})
    return cwd


def calls_of(turn) -> list[dict]:
    return [content for kind, content in turn.events if kind == "character_call"]


@in_loop
async def test_a_voice_speaks_and_its_tool_works_only_when_its_condition_holds(monkeypatch, tmp_path, server):
    registry(monkeypatch, tmp_path, server)
    server.script(ToolCalls([("open_gate", {"reason": "friendly face"})], content="Fine, fine. In you go."),
                  ToolCalls([("open_gate", {})], content="A stamped pass. Welcome."))
    world = load_world(VOICE)
    episode = Episode(world, voices=Voices.for_world(world))
    player = Lines("talk to warden", "take pass", "talk to warden", "north", "take banner")

    early = await play_turn(episode, player)
    assert 'Warden says: "Fine, fine. In you go."' in early.observation
    [refused] = calls_of(early)   # the model believed it could open the gate; the world says no
    assert refused["function"] == "open_gate" and "condition does not hold" in refused["results"]["refused"]
    assert refused["arguments"]["model_arguments"] == {"reason": "friendly face"}
    assert ("locked", "gate") in episode.game.state.facts

    await play_turn(episode, player)
    opened = await play_turn(episode, player)
    [call] = calls_of(opened)
    assert ["open", "gate"] in call["results"]["added"] and "pushes it open" in opened.observation
    await play_turn(episode, player)
    last = await play_turn(episode, player)
    assert last.result.done and episode.outcome.success

    first = server.requests[0].body
    assert [t["function"]["name"] for t in first["tools"]] == ["open_gate"]
    assert "dented helmet" in first["messages"][0]["content"] and first["tool_choice"] == "auto"
    second = server.requests[1].body["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert second[2]["content"] == "Fine, fine. In you go."   # never null: strict servers refuse that
    assert len(server.requests) == 2   # only turns that speak to the warden ask its model
    from tui_adventure.players.backends.learned import facts_for

    # asking with "auto" teaches nothing: a player on the same server still asks for "required"
    assert facts_for(episode.voices.voices["warden"].spec).tool_choice is None


@in_loop
async def test_undo_takes_back_what_the_voice_did_with_the_turn(monkeypatch, tmp_path, server):
    registry(monkeypatch, tmp_path, server)
    server.script(ToolCalls([("open_gate", {})], content="Welcome."))
    world = load_world(VOICE)
    episode = Episode(world, voices=Voices.for_world(world))
    player = Lines("take pass", "talk to warden")
    await play_turn(episode, player)
    await play_turn(episode, player)
    assert ("open", "gate") in episode.game.state.facts
    episode.undo(1)
    assert ("locked", "gate") in episode.game.state.facts and ("open", "gate") not in episode.game.state.facts


def test_par_assumes_a_cooperative_voice_and_solve_says_so():
    world = load_world(VOICE)
    plan = Planner(world).solve()
    assert plan.par == bfs(Planner(world, shortcuts=False)).par == 4
    out = adventure("solve", str(VOICE))
    assert "assuming cooperative voices (warden)" in out.stdout


def test_run_records_every_call_of_the_voice(monkeypatch, tmp_path):
    with FakeLLMServer() as server:
        cwd = registry(monkeypatch, tmp_path, server)
        server.script(ToolCalls([("open_gate", {})], content="Your pass is in order."))
        result = adventure("run", str(VOICE), "--player", "oracle", "--records", "records", cwd=cwd)
        assert result.returncode == 0, result.stderr
    data = json.loads(next((cwd / "records").rglob("interactions.json")).read_text())
    events = [e["action"] for turn in data["turns"] for e in turn if e["from"] == "GM" and e["to"] == "GM"]
    said = [a["content"] for a in events if a["type"] == "character_said"]
    calls = [a["content"] for a in events if a["type"] == "character_call"]
    assert said == [{"character": "warden", "voice": "warden-model", "said": "Your pass is in order."}]
    assert calls[0]["function"] == "open_gate" and ["open", "gate"] in calls[0]["results"]["added"]
    assert adventure("score", "records", cwd=cwd).returncode == 0
    scores = json.loads(next((cwd / "records").rglob("scores.json")).read_text())["episode scores"]
    assert scores["Success"] == 1 and scores["Main Score"] == 100


def test_a_voice_that_is_not_a_known_model_is_named_before_play(monkeypatch, tmp_path):
    cwd, _ = clean_config(monkeypatch, tmp_path)
    result = adventure("run", str(VOICE), "--player", "oracle", "--records", "records", cwd=cwd)
    assert result.returncode != 0
    assert "the voice of 'warden' (warden-model): unknown" in " ".join((result.stdout + result.stderr).split())


@in_loop
async def test_a_voice_whose_server_fails_ends_the_episode_as_an_error(monkeypatch, tmp_path, server):
    from fake_llm_server import Status

    registry(monkeypatch, tmp_path, server)
    server.script(Status(500), Status(500), Status(500))
    world = load_world(VOICE)
    episode = Episode(world, voices=Voices.for_world(world))
    with pytest.raises(PlayerFailed, match="voiced character"):
        await play_turn(episode, Lines("talk to warden"))
    assert episode.ended and episode.error is not None


@pytest.mark.parametrize("text, what", [
    ("voice: 3", "voice: names the model"),
    ("tools: [{id: open_gate, do: ['add open(gate)']}]", "for a character with a voice:"),
    ("voice: m\n    tools: [{id: open, do: ['add open(gate)']}, {id: open}]", "tool 'open' is listed twice"),
    ("voice: m\n    tools: [{id: open, at: 3}]", "unknown key 'at' in tool 'open'"),
])
def test_bad_voices_and_tools_are_named(text, what):
    base = VOICE.read_text()
    world = base.replace("    voice: warden-model\n", "").split("    tools:")[0] + f"    {text}\ngoal:\n  - held(banner)\n"
    with pytest.raises(SourceErrors) as err:
        load_world_text(world, "w.yaml")
    assert what in str(err.value)
