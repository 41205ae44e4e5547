"""What SmolLM2 and Gemma 3 270M on llama-cpp-python showed, round 2 (issue 34), through the front ends.

Each habit is a mode of the fake server (``tests/fake_llm_server.py``) and is
met through ``adventure run`` (headless, unstreamed) and ``adventure repl``
(piped: still streamed), as a researcher meets it: the records say what
happened, the screen says it too, and the episode is played or ends as an
error, never played as something it is not.
"""

import json
import time

import pytest

from conftest import TEST_WORLDS, adventure
from fake_llm_server import CutStream, Raw, ToolCalls
from model_env import write_json
from tui_adventure.players.backends.learned import cache_path, forget

pytestmark = pytest.mark.slow   # every habit through both front ends
MINI = str(TEST_WORLDS / "mini.yaml")
NAMED_ACT = {"type": "function", "function": {"name": "act"}}
FRONTS = ["run", "repl"]


def entry(cwd, **extra):
    write_json(cwd / "model_registry.json", [{"model_name": "fake-gpt", "model_id": "qwen-test",
                                              "backend": "openai_compatible", "timeout": 5, "max_retries": 2,
                                              **extra}])


def play(front, cwd, mode="text", records="records", fresh=False):
    """``adventure FRONT`` on the mini world; ``fresh``: as a new process would, knowing only the
    cache file (what this process learned of servers is forgotten first)."""
    if fresh:
        forget()
    out = adventure(front, MINI, "--player", "fake-gpt", "--mode", mode, "--records", records, cwd=cwd)
    assert "Traceback" not in out.stderr, out.stderr
    return out


def folder(cwd, records="records"):
    (path,) = (cwd / records).rglob("interactions.json")
    return path.parent


def calls(cwd, records="records"):
    return [c["call"] for c in json.loads((folder(cwd, records) / "player_1.requests.json").read_text())["calls"]]


def turns(cwd):
    data = json.loads((folder(cwd) / "interactions.json").read_text())
    return [next(e for e in t if e["from"] == "Player 1")["action"]["content"] for t in data["turns"]]


# -- 1. quotes the chat format escaped -------------------------------------------------------------
@pytest.mark.parametrize("front", FRONTS)
def test_escaped_quotes_in_tool_arguments_stay_in_the_command(config, server, front):
    """chatml-function-calling has the model write &#34; inside a JSON string: the command is the
    value with its quotes, never the arguments' JSON, and what goes back is JSON a strict server takes."""
    server.strict, server.escape_quotes = "llama.cpp", True
    server.script(ToolCalls([("act", {"command": 'examine "book" & <shelf>'})]), ToolCalls([("act", {"command": "done"})]))
    out = play(front, config, "tool")
    assert out.returncode == 0, out.stdout + out.stderr
    assert turns(config) == ['examine "book" & <shelf>', "done"]
    sent = next(m for m in server.requests[-1].messages if m["role"] == "assistant")
    assert json.loads(sent["tool_calls"][0]["function"]["arguments"]) == {"command": 'examine "book" & <shelf>'}
    if front == "run":   # run.json says the tool choice the calls used (llama.cpp refuses "required")
        run = json.loads(next((config / "records").rglob("run.json")).read_text())
        spec = run["player_models"]["0"]["model_spec"]
        assert spec["tool_choice"] == NAMED_ACT and spec["tool_choice_asked"] == "required"


def test_arguments_a_small_model_broke_still_give_its_command(config, server):
    """What SmolLM2 wrote on the real server: a quote it did not escape, and a value its token limit
    cut off. The command it meant is played, never the arguments' text, and JSON goes back."""
    server.strict = "llama.cpp"
    server.script(ToolCalls([("act", '{ "command": "examine the "book" on the shelf"')]),
                  ToolCalls([("act", '{"command": "do&#34;ne}\n```\nThis is a command')]),
                  ToolCalls([("act", {"command": "done"})]))
    out = play("run", config, "tool")
    assert out.returncode == 0, out.stdout + out.stderr
    assert turns(config) == ['examine the "book" on the shelf', 'do"ne', "done"]
    sent = [m for m in server.requests[-1].messages if m["role"] == "assistant"]
    assert [json.loads(m["tool_calls"][0]["function"]["arguments"])["command"] for m in sent] == \
        ['examine the "book" on the shelf', 'do"ne']


# -- 2. a stream the server cut off ------------------------------------------------------------------
def test_a_stream_without_a_finish_reason_is_asked_again_not_played(config, server):
    """``adventure run`` never streams; the REPL (and the app) do."""
    server.script(CutStream("> ta"), "> go east", "> done")
    out = play("repl", config)
    assert out.returncode == 0, out.stdout + out.stderr
    assert turns(config) == ["> go east", "> done"]           # the fragment "> ta" is never played
    attempts = calls(config)[0]["raw_response_obj"]["clem_player"]["attempts"]
    assert [a["outcome"].split(":")[0] for a in attempts] == ["asked again", "answered"]
    assert "without a finish reason" in attempts[0]["outcome"]
    assert "1 re-ask (" in out.stdout and "without a finish reason" in out.stdout


# -- 3. the whole time of a turn ------------------------------------------------------------------
@pytest.mark.parametrize("front", FRONTS)
def test_a_slow_first_answer_counts_the_timeout_in_the_turns_time(config, server, front):
    entry(config, timeout=0.5)
    server.slow_first = 1.5
    server.responder = lambda request: "> done"
    out = play(front, config)
    assert out.returncode == 0, out.stdout + out.stderr
    player = calls(config)[0]["raw_response_obj"]["clem_player"]
    first, last = player["attempts"]
    assert first["outcome"].startswith("asked again") and "timed out" in first["outcome"].lower()
    assert first["seconds"] >= 0.4 and last["outcome"] == "answered"
    hours, minutes, seconds = player["call_duration"].split(":")
    assert float(seconds) >= first["seconds"] + last["seconds"]      # the turn's time counts both
    assert player["call_start"].replace(" ", "T").startswith(first["start"][:19])
    if front == "repl":
        assert "s in all, 1 re-ask" in out.stdout


# -- 4. a system message dropped without a word ------------------------------------------------------
@pytest.mark.parametrize("front", FRONTS)
def test_a_dropped_system_message_is_found_and_the_prompt_moves_to_the_first_message(config, server, front):
    server.drop_system = True
    server.responder = lambda request: "> done"
    out = play(front, config)
    assert out.returncode == 0, out.stdout + out.stderr
    first, again = server.requests[:2]
    assert [m["role"] for m in first.messages] == ["system", "user"]
    assert [m["role"] for m in again.messages] == ["user"]
    assert again.messages[0]["content"].startswith(first.messages[0]["content"])   # the prompt, in front
    options = calls(config)[0]["raw_response_obj"]["clem_player"]["request_options"]
    assert options["system_message"] is False and options["system_dropped"] is True
    kept = json.loads(cache_path().read_text())
    assert [v["system"] for k, v in kept.items() if server.url in k] == [False]


# -- 5. tools ignored ------------------------------------------------------------------------------
@pytest.mark.parametrize("front", FRONTS)
def test_a_server_that_ignores_tools_ends_a_tool_mode_episode_as_an_error(config, server, front):
    server.ignore_tools = True
    server.script(ToolCalls([("act", {"command": "go east"})]))
    out = play(front, config, "tool")
    assert out.returncode == 1
    error = json.loads((folder(config) / "error.json").read_text())
    assert error["error"] == "ToolsIgnored" and "ignores tools" in error["message"]
    assert "--chat_format chatml-function-calling" in error["message"] and "--jinja" in error["message"]
    assert not (folder(config) / "completed.json").exists()
    shown = out.stdout + out.stderr
    assert ("errors 1" in shown and "played 0" in shown) if front == "run" else "ignores tools" in shown


# -- 6. what is learned is kept, and said --------------------------------------------------------------
def test_learned_forms_are_kept_between_runs_said_and_expire(config, server):
    server.strict = "llama.cpp"
    server.responder = lambda request: ToolCalls([("act", {"command": "done"})])
    assert play("run", config, "tool", "first").returncode == 0
    assert [r.body["tool_choice"] for r in server.requests] == ["required", NAMED_ACT]
    del server.requests[:]
    second = play("run", config, "tool", "second", fresh=True)   # as a new process: only the cache file known
    assert [r.body["tool_choice"] for r in server.requests] == [NAMED_ACT]   # no refusal paid again
    assert "asking as learned on" in second.stderr and str(cache_path()) in second.stderr
    assert calls(config, "second")[0]["raw_response_obj"]["clem_player"]["request_options"]["learned"]
    run_file = next((config / "first").rglob("run.json"))   # as records from before issue 34 said it
    run = json.loads(run_file.read_text())
    spec = run["player_models"]["0"]["model_spec"]
    spec["tool_choice"] = spec.pop("tool_choice_asked")
    run_file.write_text(json.dumps(run))
    again = play("run", config, "tool", "first", fresh=True)   # resumed: asked alike, not another run
    assert again.returncode == 0 and "skipped 1 (already done)" in again.stdout, again.stdout + again.stderr
    kept = json.loads(cache_path().read_text())
    for value in kept.values():
        value["at"] = time.time() - 8 * 86400   # past the expiry: asked afresh
    cache_path().write_text(json.dumps(kept))
    del server.requests[:]
    third = play("run", config, "tool", "third", fresh=True)
    assert [r.body["tool_choice"] for r in server.requests] == ["required", NAMED_ACT]
    assert "asking as learned" not in third.stderr


def test_a_streams_estimated_tokens_are_recorded_as_estimated(config, server):
    server.strict = "llama.cpp"   # no usage in its streams
    server.responder = lambda request: "> done"
    out = play("repl", config)
    assert out.returncode == 0 and "≈" in out.stdout
    player = calls(config)[0]["raw_response_obj"]["clem_player"]
    usage = player["usage_estimated"]
    assert usage["estimated"] is True and usage["prompt_tokens"] > 50 and usage["completion_tokens"] >= 1


@pytest.mark.parametrize("front", FRONTS)
def test_a_full_contexts_words_are_kept_even_before_the_first_turn(config, server, front):
    server.strict, server.n_ctx = "llama.cpp", 20
    out = play(front, config)
    meta = json.loads((folder(config) / "interactions.json").read_text())["meta"]
    assert meta["ended_by"] == "context_exhausted"
    assert "Requested tokens" in meta["ended_because"] and "exceed context window of 20" in meta["ended_because"]
    assert out.returncode in (0, 1)


# -- the probe ---------------------------------------------------------------------------------------
PROBES = {
    "standard": ({}, ["yes system message kept", 'yes tool_choice "required" accepted', "yes tools honoured",
                      "yes streaming with tools", "yes usage in streams", "yes finish reason in streams"]),
    "llama.cpp": ({"strict": "llama.cpp"}, ["yes system message kept", 'NO  tool_choice "required" accepted',
                                            "yes tools honoured", "NO  streaming with tools",
                                            "NO  usage in streams"]),
    "no system": ({"no_system": True}, ["NO  system message kept              refused"]),
    "drops system": ({"drop_system": True}, ["NO  system message kept              DROPPED"]),
    "ignores tools": ({"ignore_tools": True}, ["NO  tools honoured                   IGNORED",
                                               "--chat_format chatml-function-calling"]),
}


@pytest.mark.parametrize("case", list(PROBES))
def test_the_probe_says_what_a_server_does(config, server, case):
    flags, expected = PROBES[case]
    for name, value in flags.items():
        setattr(server, name, value)
    server.responder = lambda request: ToolCalls([("act", {"command": "look"})]) if request.body.get("tools") else "ok"
    out = adventure("models", "probe", server.url, cwd=config)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(server.url) and "fake-model" in lines[0] and len(lines) <= 24   # one screen
    for line in expected:
        assert line in out.stdout, out.stdout


def test_what_the_probe_found_is_what_the_next_run_asks(config, server):
    server.strict = "llama.cpp"
    server.responder = lambda request: ToolCalls([("act", {"command": "done"})]) if request.body.get("tools") else "ok"
    assert adventure("models", "probe", server.url, "--model", "qwen-test", cwd=config).returncode == 0
    del server.requests[:]
    out = play("run", config, "tool", fresh=True)   # as a new process: only the cache file known
    assert out.returncode == 0 and "asking as learned on" in out.stderr
    assert [r.body["tool_choice"] for r in server.requests] == [NAMED_ACT]


@pytest.mark.parametrize("model", [[], ["--model", "qwen-test"]], ids=["listing the models", "asking a model"])
def test_the_probe_of_no_server_says_it_is_not_running_in_one_line(config, model):
    """Nothing listening was said as "cannot reach URL: Connection error.", unlike a run's "connection refused"."""
    import socket

    with socket.socket() as s:   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    out = adventure("models", "probe", url, *model, cwd=config)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == f"adventure models probe: connection refused at {url}: is the server running?\n"


def test_the_probe_of_a_server_that_does_not_answer_says_it_cannot_reach_it(config):
    """A server that takes the connection and says nothing is not said to be down."""
    import socket

    with socket.socket() as s:   # listening, never accepting: the request goes out, no answer comes back
        s.bind(("127.0.0.1", 0))
        s.listen()
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        out = adventure("models", "probe", url, "--timeout", "0.5", cwd=config)
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (f"adventure models probe: {url}: no whole answer within 0.5 s (the request's timeout);"
                          " the probe stops here\n")


def test_the_probe_of_a_server_that_is_not_openai_is_one_line(config):
    """A web page where the model list should be (a URL without /v1, another service on the port)."""
    import http.server
    import threading

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", "16")
            self.end_headers()
            self.wfile.write(b"<html>hi</html>\n")

        def log_message(self, *args):
            pass

    page = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=page.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{page.server_address[1]}"
        out = adventure("models", "probe", url, cwd=config)
    finally:
        page.shutdown()
    assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith(f"adventure models probe: {url} does not answer as an OpenAI-compatible server")
    assert out.stderr.endswith("check the URL (it usually ends in /v1)\n")


def test_the_probe_of_answers_without_choices_says_so(config, server):
    server.responder = lambda request: Raw({"id": "x", "object": "chat.completion", "created": 0,
                                            "model": "fake-model", "choices": []})
    out = adventure("models", "probe", server.url, cwd=config)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "refused (an answer without choices)" in out.stdout
