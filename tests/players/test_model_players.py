"""Model players through the real ``openai`` SDK against a scripted server on 127.0.0.1.

Whole episodes in every mode, streaming, tool calls, the faults a real
server produces (429, 5xx, bad JSON, a stall, a dropped connection), a batch
of episodes at once, and records that clemcore's own tools accept.
"""

import json
from pathlib import Path

import pytest

from clem_helpers import world as clem_world
from clemcore_check import evaluate, require_clemcore, transcribe_all
from conftest import TEST_WORLDS
from fake_llm_server import Drop, DropMidStream, Malformed, Stall, Status, ToolCalls
from model_env import MODEL_KEY, in_loop, write_json
from tui_adventure.batches.episodes import play_episode, run_all
from tui_adventure.records.recorder import Recorder
from tui_adventure.gamemaster.scoring import score_tree
from tui_adventure.gamemaster.episode import Episode, PlayerFailed, play_turn
from tui_adventure.players import make_player

SECRET = MODEL_KEY


def model(world, mode="text", **kw):
    kw = {"timeout": 5.0, "max_retries": 2, "retry_delay": 0.01, **kw}
    return make_player("fake-gpt", world, mode, **kw)


def record_files(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in root.rglob("*.json")}


# -- prompting ---------------------------------------------------------------------------------
@in_loop
async def test_clembench_episodes_send_exactly_what_clemcore_sends(config, server, tmp_path):
    world = clem_world("home_deliver_three_basic_easy", 0)
    server.script("  > go hallway\n", "> take pillow", "> done")
    episode, _ = await play_episode(world, model(world), tmp_path / "records")
    assert [t.reply for t in episode.turns] == ["> go hallway", "> take pillow", "> done"]   # stripped
    assert len(server.requests) == 3
    for k, request in enumerate(server.requests):
        assert request.messages == episode.messages[:2 * k + 1]    # alternating user/assistant, nothing added
        assert request.body["temperature"] == 0 and request.body["max_tokens"] == 300
        assert request.body["model"] == "qwen-test"
        assert "tools" not in request.body and not request.body.get("stream")
        assert request.headers["authorization"] == f"Bearer {SECRET}"
    first = server.requests[0].messages[0]["content"]
    assert first == episode.first_message and first.startswith(world.meta["prompt"])

    folder = tmp_path / "records" / "fake-gpt" / "adventuregame" / "home_deliver_three_basic_easy" / "instance_00000"
    calls = json.loads((folder / "player_1.requests.json").read_text())["calls"]
    assert [c["call"]["manipulated_prompt_obj"] for c in calls] == [r.messages for r in server.requests]
    raw = calls[0]["call"]["raw_response_obj"]
    assert raw["choices"][0]["message"]["content"] == "  > go hallway\n"      # the provider's own text
    assert raw["clem_player"]["response"] == "> go hallway" and raw["clem_player"]["model_name"] == "fake-gpt"
    interactions = json.loads((folder / "interactions.json").read_text())
    assert interactions["player_models"]["0"]["model_spec"]["backend"] == "openai_compatible"
    assert (folder / "completed.json").exists()
    assert not any(SECRET in text for text in record_files(tmp_path / "records").values())


@in_loop
async def test_native_worlds_get_a_prompt_from_the_world(config, server, mini):
    player = model(mini)
    episode = Episode(mini)
    server.script("> go east")
    turn = await play_turn(episode, player)
    system, user = server.requests[0].messages[:2]
    assert system["role"] == "system"   # ours, so the server's template puts no persona of its own there
    first = system["content"]
    assert "Your goal: The book is on the shelf." in first
    assert "take <obj>" in first and "> look" in first and "at most 20 turns" in first
    assert user == {"role": "user", "content": episode.first_message}
    assert turn.command == "go east" and "kitchen" in turn.observation.lower()


@in_loop
async def test_tokens_stream_to_the_screen_as_they_come(config, server, mini):
    player = model(mini)
    episode = Episode(mini)
    chunks: list[str] = []
    server.script("> go east", "> take red key")
    answer = (await play_turn(episode, player, stream=chunks.append)).answer
    assert len(chunks) >= 3 and "".join(chunks) == "> go east"
    assert server.requests[0].body["stream"] is True
    raw = answer.call["raw_response_obj"]
    assert raw["choices"][0]["message"]["content"] == "> go east" and raw["usage"]["prompt_tokens"] > 0
    assert answer.tokens_in == raw["usage"]["prompt_tokens"] and answer.tokens_out > 0
    assert answer.latency > 0
    later = (await play_turn(episode, player, stream=chunks.append)).answer
    assert later.tokens_in > answer.tokens_in            # each answer has its own usage (the UI adds them up)
    assert episode.turns[-1].command == "take red key"


# -- tool modes --------------------------------------------------------------------------------
@pytest.mark.parametrize("streamed", [False, True])
@in_loop
async def test_tool_mode_calls_act_and_the_engine_sees_commands(config, server, mini, streamed):
    player = model(mini, "tool")
    episode = Episode(mini)
    server.script(ToolCalls([("act", {"command": "go east"})], content="Let me look around."),
                  ToolCalls([("act", {"command": "take red key"})]))
    stream = [] if streamed else None
    for _ in range(2):
        await play_turn(episode, player, stream=stream.append if streamed else None)
    assert [t.command for t in episode.turns] == ["go east", "take red key"]
    assert episode.turns[1].observation.startswith("You take")
    body = server.requests[1].body
    assert [t["function"]["name"] for t in body["tools"]] == ["act"] and body["tool_choice"] == "required"
    assistant, tool_result = body["messages"][2], body["messages"][3]
    assert assistant["tool_calls"][0]["function"]["name"] == "act"
    assert tool_result == {"role": "tool", "tool_call_id": assistant["tool_calls"][0]["id"],
                           "content": episode.turns[0].observation}
    if streamed:
        assert "Let me look around." in "".join(stream)


@in_loop
async def test_tools_mode_offers_one_tool_per_action_with_the_worlds_names(config, server, mini):
    player = model(mini, "tools")
    episode = Episode(mini)
    server.script(ToolCalls([("take", {"obj": "book"})]), ToolCalls([("put_on", {"obj": "book", "dst": "table"})]),
                  ToolCalls([("unlock", {"obj": "door", "key": "brass key"})]), ToolCalls([("done", {})]))
    while not episode.ended:
        await play_turn(episode, player)
    assert [t.reply for t in episode.turns] == ["take book", "put book on table", "unlock door with brass key", "done"]
    tools = {t["function"]["name"]: t["function"]["parameters"] for t in server.requests[0].body["tools"]}
    assert list(tools) == [a.id for a in mini.actions]
    assert {"brass key", "red key", "door", "book", "shelf"} <= set(tools["take"]["properties"]["obj"]["enum"])
    assert tools["go"]["properties"]["dir"]["enum"] == ["north", "east", "west", "south"]
    assert tools["put_on"]["required"] == ["obj", "dst"] and tools["look"]["properties"] == {}


@in_loop
async def test_tool_calls_become_clembench_replies_with_the_plan(config, server, tmp_path):
    world = clem_world("home_deliver_three_planning_easy", 0)
    server.script(ToolCalls([("take", {"e": "pillow"}), ("go", {"d": "hallway"})]),
                  ToolCalls([("put", {"e": "pillow", "t": "bed"})]),
                  ToolCalls([("done", {})], content="I think I am finished."))
    episode, _ = await play_episode(world, model(world, "tools"), tmp_path / "records")
    # a call without a plan gets an empty plan line: never words ("done") the model did not produce
    assert [t.reply for t in episode.turns] == ["> take pillow\nNext actions: go hallway",
                                                "> put pillow on bed\nNext actions: ", "> done\nNext actions: "]
    second = server.requests[1].messages
    assert second[3] == {"role": "tool", "tool_call_id": second[1]["tool_calls"][1]["id"],
                         "content": "(planned; not played yet)"}


# -- faults ------------------------------------------------------------------------------------
FAULTS = [Status(429), Status(500), Status(503), Malformed(), Drop(), Stall(3.0), DropMidStream()]


# only a stream can break off in the middle: DropMidStream is tried streamed alone
FAULT_CASES = [pytest.param(fault, streamed, id=f"{type(fault).__name__}{getattr(fault, 'code', '')}-"
                            f"{'streamed' if streamed else 'plain'}")
               for fault in FAULTS for streamed in (False, True)
               if streamed or not isinstance(fault, DropMidStream)]


@pytest.mark.parametrize(("fault", "streamed"), FAULT_CASES)
@in_loop
async def test_a_turn_survives_a_passing_fault(config, server, mini, fault, streamed):
    player = model(mini, timeout=0.3 if isinstance(fault, Stall) else 5.0)
    episode = Episode(mini)
    server.script(fault, "> go east")
    chunks: list[str] = []
    turn = await play_turn(episode, player, stream=chunks.append if streamed else None)
    assert turn.command == "go east" and len(server.requests) == 2
    if streamed and isinstance(fault, (Malformed, DropMidStream)):
        assert "asking again" in "".join(chunks)      # the screen says why the text starts over


@pytest.mark.slow
@in_loop
async def test_a_stalled_server_times_out_and_the_episode_ends_as_an_error(config, server, mini, tmp_path):
    player = model(mini, timeout=0.2, max_retries=1)
    server.script("> go east", Stall(3.0), Stall(3.0))
    recorder = Recorder(tmp_path / "records", mini, player.name)
    episode = Episode(mini)
    recorder.start(episode)
    await play_turn(episode, player, recorder)
    with pytest.raises(PlayerFailed, match="APITimeoutError"):
        await play_turn(episode, player, recorder)
    assert episode.ended and (recorder.dir / "error.json").exists() and not (recorder.dir / "completed.json").exists()
    assert len(json.loads((recorder.dir / "interactions.json").read_text())["turns"]) == 1   # the turn before stays


@pytest.mark.parametrize("world", ["house", "clembench/home_deliver_three_basic_easy/0"],
                         ids=["first contact, the player asks again", "known server, the SDK retries"])
def test_a_server_that_refuses_the_connection_is_said_to_be_down_not_slow(in_tmp, world):
    """Nothing listening on the port was recorded and shown as "timed out: no answer within 120 s"."""
    import re
    import socket

    from conftest import adventure

    with socket.socket() as s:   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    out = adventure("run", world, "--player", f"openai_compatible:m@{url}", "--records", "r")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    error = json.loads(next((in_tmp / "r").rglob("error.json")).read_text())
    said = f"connection refused at {url}: is the server running?"
    assert re.fullmatch(re.escape(said) + r" \((gave up after \d+ tries, [\d.]+ s in all|after \d+ retries)\)",
                        error["message"]), error
    shown = " ".join((out.stdout + out.stderr).split())   # the progress display wraps long lines
    assert said in shown and "timed out" not in shown


@in_loop
async def test_a_failing_model_ends_only_its_own_episode(config, server, mini, tmp_path):
    """Three episodes at once; one meets a server that keeps failing: it is recorded as an error,
    the others finish, and the batch reports one error."""
    text = (TEST_WORLDS / "mini.yaml").read_text()
    worlds = tmp_path / "worlds"
    worlds.mkdir()
    for n in (1, 2, 3):
        (worlds / f"mini{n}.yaml").write_text(text.replace("game: mini", f"game: mini{n}\nintro: World {n}."))

    def respond(request):
        replies = sum(1 for m in request.messages if m["role"] == "assistant")
        if "World 2." in request.messages[1]["content"] and replies >= 1:
            return Status(500)
        return ToolCalls([("act", {"command": "look" if replies == 0 else "done"})])

    server.responder = respond
    server.delay = 0.05
    write_json(config / "model_registry.json", [{"model_name": "fake-gpt", "model_id": "qwen-test",
                                                 "backend": "openai_compatible", "max_retries": 1}])
    summary = await run_all(sorted(worlds.glob("*.yaml")), "fake-gpt", tmp_path / "records", jobs=3, mode="tool")
    assert (summary.played, summary.errors) == (2, 1)
    assert server.max_in_flight == 3                 # the episodes really ran at once
    run = tmp_path / "records" / "fake-gpt--tool"    # a tool-mode run is a run of its own
    failed = run / "mini2" / "mini2" / "instance_00000"
    error = json.loads((failed / "error.json").read_text())
    assert error["error"] == "ModelError" and "InternalServerError" in error["message"]   # clemcore's shape
    assert len(json.loads((failed / "interactions.json").read_text())["turns"]) == 1
    for ok in ("mini1", "mini3"):
        assert (run / ok / ok / "instance_00000" / "completed.json").exists()
    # a rerun plays only what is not done
    server.responder = lambda request: ToolCalls([("act", {"command": "done"})])
    summary = await run_all(sorted(worlds.glob("*.yaml")), "fake-gpt", tmp_path / "records", jobs=3, mode="tool")
    assert (summary.played, summary.skipped, summary.errors) == (1, 2, 0)


@in_loop
async def test_a_disk_failing_at_an_episodes_end_is_reported_and_played_again(config, server, mini, tmp_path,
                                                                               monkeypatch):
    """A batch lands each episode's last write on a worker thread (its fsyncs must not stall the other
    episodes): a disk that refuses it still makes the episode an error, not a success, and leaves
    no completed.json, so the next run plays it again."""
    import errno

    import tui_adventure.records.recorder as recorder

    real = recorder.write_atomic

    def full_at_the_end(path, data, durable=True, sync_dir=True):
        if path.name == "completed.json":
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data, durable, sync_dir)

    server.responder = lambda request: "> done"
    write_json(config / "model_registry.json", [{"model_name": "fake-gpt", "model_id": "qwen-test",
                                                 "backend": "openai_compatible"}])
    monkeypatch.setattr(recorder, "write_atomic", full_at_the_end)
    summary = await run_all([TEST_WORLDS / "mini.yaml"], "fake-gpt", tmp_path / "records", jobs=2)
    assert (summary.played, summary.succeeded, summary.errors) == (0, 0, 1)
    episode = next((tmp_path / "records").rglob("instance_00000"))
    assert not (episode / "completed.json").exists()
    assert json.loads((episode / "interactions.json").read_text())["meta"]["completed"]   # the turns landed
    monkeypatch.setattr(recorder, "write_atomic", real)
    summary = await run_all([TEST_WORLDS / "mini.yaml"], "fake-gpt", tmp_path / "records", jobs=2)
    assert (summary.played, summary.skipped) == (1, 0)
    assert (episode / "completed.json").exists()


# -- records -----------------------------------------------------------------------------------
@in_loop
async def test_model_records_pass_clemcores_checks(config, server, mini, tmp_path):
    require_clemcore()
    root = tmp_path / "records"
    basic, planning = clem_world("home_deliver_three_basic_easy", 2), clem_world("home_deliver_three_planning_easy", 3)
    server.script("> go hallway", "> done")
    await play_episode(basic, model(basic), root)
    server.script(ToolCalls([("go", {"d": "hallway"}), ("go", {"d": "kitchen"})]), ToolCalls([("done", {})]))
    await play_episode(planning, model(planning, "tools"), root)
    server.script(ToolCalls([("act", {"command": "take book"})]), ToolCalls([("act", {"command": "done"})]))
    await play_episode(mini, model(mini, "tool"), root)
    other = clem_world("home_deliver_three_basic_hard", 4)
    server.script("> go hallway", Status(500), Status(500), Status(500))
    with pytest.raises(PlayerFailed):
        await play_episode(other, model(other), root)
    scored = score_tree(root)
    assert len(scored) == 3                   # the errored episode is not played, as clem eval counts it
    assert not any("basic_hard" in str(p) for p in scored)
    transcripts = transcribe_all(root)
    assert len(transcripts) == 4 and all("take book" in p.read_text() or "go hallway" in p.read_text()
                                         for p in transcripts)
    csv, _ = evaluate(root)
    assert "fake-gpt" in csv.read_text()
    assert not any(SECRET in t for t in record_files(root).values())
