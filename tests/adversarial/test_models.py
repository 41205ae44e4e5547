"""Hostile model servers and registries (issue 21): a trickling stream meets its time budget, a huge
reply is cut, the key never reaches the records whatever field carries it, and a broken registry or
key file is a message, not a traceback."""

import json

import pytest

from conftest import TEST_WORLDS
from fake_llm_server import Status, Trickle
from model_env import MODEL_KEY, clean_config, configure_fake_gpt, in_loop, write_json

from tui_adventure.batches.episodes import play_episode
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.gamemaster.episode import PlayerFailed
from tui_adventure.players import make_player

KEY = MODEL_KEY


@pytest.fixture
def config(monkeypatch, tmp_path, server):
    return configure_fake_gpt(monkeypatch, tmp_path, server)


def mini():
    return load_world(TEST_WORLDS / "mini.yaml")


@pytest.mark.slow
@pytest.mark.timeout(300)   # a hang guard; what ends the stream is the model's timeout, named in the error
@in_loop
async def test_a_trickling_stream_is_cut_by_the_models_timeout(config, server, tmp_path):
    server.script(*[Trickle("> " + "look " * 200, delay=0.5)] * 4)   # each read in time, the whole never
    world = mini()
    player = make_player("fake-gpt", world, "text", timeout=1.0, max_retries=0, retry_delay=0.01)
    with pytest.raises(PlayerFailed, match="took longer than the 1 s"):
        await _play_streamed(world, player, tmp_path / "r")


async def _play_streamed(world, player, root):
    from tui_adventure.records.recorder import Recorder
    from tui_adventure.players import recorder_options
    from tui_adventure.gamemaster.episode import Episode, play_turn

    episode = Episode(world)
    recorder = Recorder(root, world, player.name, **recorder_options(player, episode))
    recorder.start(episode)
    while not episode.ended:
        await play_turn(episode, player, recorder, stream=lambda chunk: None)


@pytest.mark.slow
@in_loop
async def test_a_huge_reply_is_cut_and_the_records_stay_small(config, server, tmp_path):
    server.script("> take book " + "x" * 5_000_000, "> done")
    world = mini()
    episode, _ = await play_episode(world, make_player("fake-gpt", world, "text", timeout=10.0), tmp_path / "r")
    sizes = [p.stat().st_size for p in (tmp_path / "r").rglob("*.json")]
    assert max(sizes) < 1_000_000


@in_loop
async def test_the_key_never_reaches_the_records_whatever_field_echoes_it(config, server, tmp_path):
    server.script(*[Status(500, message=f"bad key {KEY} for you")] * 6)
    world = mini()
    with pytest.raises(PlayerFailed):
        await play_episode(world, make_player("fake-gpt", world, "text", timeout=5.0, max_retries=1,
                                              retry_delay=0.01), tmp_path / "r")
    text = "".join(p.read_text() for p in (tmp_path / "r").rglob("*.json"))
    assert "error.json" in {p.name for p in (tmp_path / "r").rglob("*.json")}
    assert KEY not in text and "[redacted]" in text


def test_scrub_redacts_the_key_by_value_in_any_field():
    from tui_adventure.records.files import scrub

    raw = {"choices": [{"message": {"content": "ok"}}], "debug": {"echo": f"Bearer {KEY}"}, "api_key": KEY}
    assert json.dumps(scrub(raw, (KEY,))).count(KEY) == 0


@pytest.mark.parametrize("entry, message", [
    ({"timeout": None}, "timeout must be a number of seconds"),
    ({"timeout": "5s"}, "timeout must be a number of seconds"),
    ({"max_retries": -1}, "max_retries must be a number"),
])
def test_a_broken_registry_entry_is_a_message(monkeypatch, tmp_path, entry, message):
    cwd, _ = clean_config(monkeypatch, tmp_path)
    write_json(cwd / "model_registry.json", [{"model_name": "m", "model_id": "q", "backend": "openai_compatible",
                                              "base_url": "http://127.0.0.1:9/v1", **entry}])
    with pytest.raises(ValueError, match=message):
        make_player("m", mini(), "text")


def test_a_string_entry_in_key_json_is_a_message(monkeypatch, tmp_path):
    cwd, _ = clean_config(monkeypatch, tmp_path)
    write_json(cwd / "model_registry.json", [{"model_name": "m", "model_id": "q", "backend": "openai_compatible",
                                              "base_url": "http://127.0.0.1:9/v1"}])
    write_json(cwd / "key.json", {"openai_compatible": "sk-just-a-string"})
    with pytest.raises(ValueError, match="the entry for openai_compatible must be a mapping"):
        make_player("m", mini(), "text")


@pytest.mark.slow
@in_loop
async def test_a_tool_call_nested_past_pythons_parser_is_a_turn_not_a_crash(config, server, tmp_path):
    from fake_llm_server import ToolCalls

    from tui_adventure.gamemaster.episode import Episode, play_turn

    world = mini()
    player = make_player("fake-gpt", world, "tool", timeout=10.0, max_retries=0)
    episode = Episode(world)
    deep = '{"command": ' + "[" * 5000 + "]" * 5000 + "}"         # RecursionError in json.loads
    server.script(ToolCalls([("act", deep)]))
    await play_turn(episode, player)                                    # a turn the rules judge, not a crash
    assert len(episode.turns) == 1   # judged as the rules judge a reply with no command, not PlayerFailed
