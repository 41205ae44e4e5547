"""Model players against servers as strict as the real ones (``FakeLLMServer(strict=...)``).

What SmolLM2 on llama-cpp-python's server showed: ``tool_choice: "required"``
fails with a 500, an assistant message with ``content: null`` is refused,
tool calls are not streamed, streams carry no usage, a full context is a
400, some templates have no system role. Each test plays through the real
``openai`` SDK and asserts what a researcher would see: the episode goes
on, the records say how each call was asked, the run's outcome is right.
"""

import json
import math

import pytest

from clemcore_check import require_clemcore, transcribe_all
from conftest import TEST_WORLDS, adventure
from fake_llm_server import Raw, Status, ToolCalls
from model_env import in_loop
from tui_adventure.batches.episodes import run_all
from tui_adventure.batches.run import shared_local_server
from tui_adventure.records.recorder import Recorder
from tui_adventure.evaluation.results import evaluate
from tui_adventure.gamemaster.episode import Episode, PlayerFailed, play_turn
from tui_adventure.gamemaster.scoring import score_tree
from tui_adventure.players import make_player, recorder_options
from tui_adventure.keyboard.session import Session

NAMED_ACT = {"type": "function", "function": {"name": "act"}}


def model(world, mode="text", **kw):
    return make_player("fake-gpt", world, mode, **{"timeout": 5.0, "max_retries": 1, "retry_delay": 0.01, **kw})


def calls_of(folder):
    return [c["call"] for c in json.loads((folder / "player_1.requests.json").read_text())["calls"]]


# -- llama.cpp's server --------------------------------------------------------------------------
@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "streamed"])
@in_loop
async def test_tool_mode_plays_on_llama_cpp(config, server, mini, tmp_path, streamed):
    """required is refused (500), so the named choice is asked; streaming tool calls is refused, so
    the call is asked unstreamed; both are learned, and the history never sends content null."""
    server.strict = "llama.cpp"
    server.script(ToolCalls([("act", {"command": "go east"})]), ToolCalls([("act", {"command": "take red key"})]),
                  ToolCalls([("act", {"command": "done"})]))
    player = model(mini, "tool")
    stream = (lambda chunk: None) if streamed else None
    episode = Episode(mini)
    recorder = Recorder(tmp_path / "r", mini, player.name, **recorder_options(player, episode))
    recorder.start(episode)
    while not episode.ended:
        await play_turn(episode, player, recorder, stream=stream)
    assert [t.command for t in episode.turns] == ["go east", "take red key", "done"]
    asked = [(r.body.get("tool_choice"), bool(r.body.get("stream"))) for r in server.requests]
    first = ([("required", True), ("required", False), (NAMED_ACT, True), (NAMED_ACT, False)] if streamed
             else [("required", False), (NAMED_ACT, False)])
    assert asked == first + [(NAMED_ACT, False)] * 2      # learned: nothing refused is asked again
    later = server.requests[-1].messages
    assert all(m["content"] == "" for m in later if m["role"] == "assistant")   # never null
    options = [c["raw_response_obj"]["clem_player"]["request_options"] for c in calls_of(recorder.dir)]
    assert options[0] == {"tool_choice": NAMED_ACT, "stream": False, "system_message": True}
    spec = json.loads((recorder.dir / "interactions.json").read_text())["player_models"]["0"]["model_spec"]
    assert (spec["mode"], spec["tools"], spec["tool_choice_asked"]) == ("tool", ["act"], "required")
    run = json.loads((tmp_path / "r" / player.name / "run.json").read_text())["player_models"]["0"]["model_spec"]
    assert spec["tool_choice"] == run["tool_choice"] == NAMED_ACT   # what the calls used, not what was asked


@in_loop
async def test_tools_mode_on_llama_cpp_falls_back_to_auto(config, server, mini):
    server.strict = "llama.cpp"
    server.script(ToolCalls([("go", {"dir": "east"})]))
    episode = Episode(mini)
    await play_turn(episode, model(mini, "tools"))
    assert episode.turns[0].command == "go east"
    assert [r.body["tool_choice"] for r in server.requests] == ["required", "auto"]   # no single tool to name


@in_loop
async def test_a_server_that_refuses_every_tool_choice_says_what_was_tried(config, server, mini):
    server.responder = lambda request: Status(500, None, "tools are not supported by this template")
    episode = Episode(mini)
    with pytest.raises(PlayerFailed) as failed:
        await play_turn(episode, model(mini, "tool"))
    text = str(failed.value)
    assert "refused every way of asking for a tool call" in text and server.url in text
    assert '"required"' in text and '"auto"' in text and "--mode text" in text
    assert len(server.requests) == 3                      # each asked once: a refusal is not retried


@in_loop
async def test_streamed_text_without_usage_is_counted_and_says_so(config, server, mini):
    server.strict = "llama.cpp"
    server.script("> go east")
    answer = (await play_turn(Episode(mini), model(mini), stream=lambda chunk: None)).answer
    assert answer.call["raw_response_obj"]["usage"] is None          # the server's own account: none
    assert answer.tokens_estimated and answer.tokens_in > 50 and answer.tokens_out >= 1
    assert answer.finish_reason == "stop"


@in_loop
async def test_a_response_in_a_servers_own_dialect_is_played_and_kept_as_sent(config, server, mini):
    # The SDK's types refuse this body (a finish reason of its own, no created time); the answer is
    # still read, and the records keep what the server said.
    server.script(Raw({"id": "x1", "object": "chat.completion", "created": None, "model": "m",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": "> go east"},
                                    "finish_reason": "eos_token"}],
                       "usage": {"prompt_tokens": 407, "completion_tokens": 3, "total_tokens": 410},
                       "timings": {"predicted_ms": 12.5}}))
    answer = (await play_turn(Episode(mini), model(mini))).answer
    assert answer.text == "> go east" and answer.finish_reason == "eos_token" and answer.tokens_in == 407
    raw = answer.call["raw_response_obj"]
    assert raw["choices"][0]["finish_reason"] == "eos_token" and raw["timings"] == {"predicted_ms": 12.5}


@in_loop
async def test_escaped_text_is_not_sent_back_escaped(config, server, mini):
    """The function-calling template HTML-escapes; the model copies the escapes. What goes back in
    the history is the model's text unescaped, so it does not compound turn after turn."""
    server.script(ToolCalls([("act", {"command": "examine &lt;table&gt; &amp; book"})], content="I&#39;ll look"),
                  ToolCalls([("act", {"command": "look"})]))
    player = model(mini, "tool")
    episode = Episode(mini)
    await play_turn(episode, player)
    await play_turn(episode, player)
    assert episode.turns[0].command == "examine <table> & book"
    assistant = next(m for m in server.requests[1].messages if m["role"] == "assistant")
    assert assistant["content"] == "I'll look"
    assert "&lt;" not in assistant["tool_calls"][0]["function"]["arguments"]
    assert "<table> & book" in assistant["tool_calls"][0]["function"]["arguments"]


@in_loop
async def test_a_template_without_a_system_role_gets_the_prompt_in_the_first_message(config, server, mini):
    server.no_system = True
    server.script("> go east", "> look")
    player, episode = model(mini), Episode(mini)
    await play_turn(episode, player)
    await play_turn(episode, player)
    roles = [[m["role"] for m in r.messages] for r in server.requests]
    assert roles == [["system", "user"], ["user"], ["user", "assistant", "user"]]   # refused once, then learned
    first = server.requests[-1].messages[0]["content"]
    assert first.startswith("You are playing a text adventure game.") and first.endswith(episode.first_message)


@in_loop
async def test_a_lone_surrogate_in_the_history_does_not_fail_the_request(config, server, mini):
    server.script("> look \ud800", "> done")
    player, episode = model(mini), Episode(mini)
    await play_turn(episode, player)
    await play_turn(episode, player)
    assert episode.turns[1].command == "done"
    assert server.requests[1].messages[2]["content"] == "> look \ufffd"


# -- a full context ------------------------------------------------------------------------------
@pytest.mark.parametrize("strict", ["llama.cpp", "vllm"])
@in_loop
async def test_a_full_context_ends_the_episode_as_played_and_aborted(config, server, tmp_path, strict):
    server.strict, server.n_ctx = strict, 700
    server.responder = lambda request: "> examine bed"
    instance = "clembench/home_deliver_three_basic_easy/0"
    root = tmp_path / "records"
    summary = await run_all([instance], "fake-gpt", root, jobs=1)
    assert (summary.played, summary.errors, summary.context_full) == (1, 0, 1)
    folder = next(root.rglob("instance_00000"))
    assert (folder / "completed.json").exists() and not (folder / "error.json").exists()
    interactions = json.loads((folder / "interactions.json").read_text())
    assert interactions["meta"]["ended_by"] == "context_exhausted"
    last = [e["action"]["type"] for e in interactions["turns"][-1]]
    assert last[-2:] == ["context_exhausted", "game_result"]
    played = len(interactions["turns"])
    assert len(server.requests) == played + 1             # the refused request is not retried
    score_tree(root)
    scores = json.loads((folder / "scores.json").read_text())["episode scores"]
    assert scores["Aborted"] == 1 and scores["context_exhausted"] == 1
    assert math.isnan(scores["Main Score"])                # as clembench scores every abort
    again = await run_all([instance], "fake-gpt", root, jobs=1)
    assert (again.played, again.skipped) == (0, 1) and len(server.requests) == played + 1   # not asked again
    require_clemcore()
    assert transcribe_all(root)


# -- who played ----------------------------------------------------------------------------------
@in_loop
async def test_a_person_taking_over_is_recorded_as_a_person(config, server, mini, tmp_path):
    server.script("> go east")
    session = Session(mini, model(mini), records=tmp_path / "records")
    await session.play()
    session.set_player(None)                               # the person takes the keyboard
    await session.submit_line("take red key")
    folder = session.recorder.dir
    models = [c["raw_response_obj"]["clem_player"]["model_name"] for c in calls_of(folder)]
    assert models == ["fake-gpt", "human"]
    interactions = json.loads((folder / "interactions.json").read_text())
    assert interactions["meta"]["mixed"] is True
    assert interactions["meta"]["played_by"] == {"fake-gpt": 1, "human": 1}
    responses = [next(e for e in t if e["from"] == "Player 1") for t in interactions["turns"]]
    assert ["played_by" in r for r in responses] == [False, True] and responses[1]["played_by"] == "human"
    (folder / "completed.json").write_text("{}")           # as if finished, so it is scored
    score_tree(tmp_path / "records")
    notes: list[str] = []
    evaluate(tmp_path / "records", notes)
    assert any("fake-gpt" in n and "mixed" in n for n in notes)
    assert "mixed" in (tmp_path / "records" / "results.html").read_text()


# -- a run's identity ----------------------------------------------------------------------------
@in_loop
async def test_runs_in_other_modes_stay_apart(config, server, mini, tmp_path):
    server.responder = lambda request: (ToolCalls([("act", {"command": "done"})]) if request.body.get("tools")
                                        else "> done")
    root = tmp_path / "records"
    text = await run_all([str(TEST_WORLDS / "mini.yaml")], "fake-gpt", root, jobs=1)
    tool = await run_all([str(TEST_WORLDS / "mini.yaml")], "fake-gpt", root, jobs=1, mode="tool")
    assert (text.played, tool.played, tool.skipped) == (1, 1, 0)     # not "skipped (already done)"
    assert sorted(p.name for p in root.iterdir()) == ["fake-gpt", "fake-gpt--tool"]
    clash = await run_all([str(TEST_WORLDS / "mini.yaml")], "fake-gpt", tmp_path / "other", jobs=1)
    assert clash.played == 1
    logged: list[str] = []

    class Progress:
        def log(self, text):
            logged.append(text)

        def advance(self, summary):
            pass

    refused = await run_all([str(TEST_WORLDS / "mini.yaml")], "fake-gpt", tmp_path / "other", jobs=1,
                            mode="tools", name="fake-gpt", progress=Progress())
    assert refused.errors == 1 and "holds a run with mode 'text'" in logged[0] and "--name" in logged[0]


def test_an_unknown_model_fails_the_run_at_once(in_tmp):
    out = adventure("run", "house", "tutorial", "--player", "no-such-model", "--records", "r")
    assert out.returncode == 2
    assert out.stderr.count("no-such-model") == 1 and not (in_tmp / "r").exists()


def test_several_jobs_on_one_local_server_get_a_warning(config, server, mini):
    warning = shared_local_server(model(mini), jobs=2)
    assert "2 jobs share one local server" in warning and server.url in warning
    assert shared_local_server(model(mini), jobs=1) is None
    assert shared_local_server(make_player("oracle"), jobs=4) is None


# -- turn limits ---------------------------------------------------------------------------------
def test_an_imported_worlds_max_turns_is_honoured(in_tmp):
    from tui_adventure.instances.packaged import INSTANCES

    data = json.loads(INSTANCES.read_text())   # one instance of the packaged file: an import of one world
    first = next(e for e in data["experiments"] if e["name"] == "home_deliver_three_basic_easy")
    data["experiments"] = [{**first, "game_instances": first["game_instances"][:1]}]
    (in_tmp / "instances.json").write_text(json.dumps(data))
    assert adventure("import", "clembench", "instances.json", "--out", "w").returncode == 0
    path = next((in_tmp / "w" / "home_deliver_three_basic_easy").glob("instance_00000.yaml"))
    path.write_text(path.read_text().replace("max_turns: 50", "max_turns: 3", 1))   # the file's, not the instance's
    out = adventure("run", str(path), "--player", "random:1", "--records", "r")
    assert out.returncode == 0, out.stderr
    interactions = json.loads(next((in_tmp / "r").rglob("interactions.json")).read_text())
    assert len(interactions["turns"]) == 3 and interactions["adventure_info"]["max_turns"] == 3
    assert json.loads(next((in_tmp / "r").rglob("instance.json")).read_text())["max_turns"] == 3
    path.write_text(path.read_text().replace("max_turns: 3", "max_turns: many", 1))
    bad = adventure("check", str(path))
    assert bad.returncode == 1 and f"{path}:" in bad.stdout and "max_turns must be a whole number" in bad.stdout


def test_run_max_turns_ends_every_episode_there(in_tmp):
    out = adventure("run", "house", "--player", "random:1", "--records", "r", "--max-turns", "4")
    assert out.returncode == 0, out.stderr
    interactions = json.loads(next((in_tmp / "r").rglob("interactions.json")).read_text())
    assert len(interactions["turns"]) == 4
    assert adventure("run", "house", "--player", "oracle", "--max-turns", "0").returncode == 2

