"""A hostile model server against ``adventure models probe`` (issue 55): ``--timeout`` is a deadline for
each whole request, streams included; an answer is read up to a size cap; a model id too long or
holding control characters is never asked, shown or kept in the shared cache. A model player's
requests are bounded the same way (a reply is a stranger's too).

The server here is a small asyncio one over raw sockets (standard library), on 127.0.0.1, in a thread
of its own: it trickles a model list a byte at a time, streams an answer for ever, sends a model list
far larger than the cap, or lists a 5 MB model id; it counts what it sent."""

from __future__ import annotations

import asyncio
import gzip
import json
import threading

import pytest

from tui_adventure.cli import main

HARD_LIMIT = 60.0            # seconds a probe may take here before the test calls it hung
MAX_BODY = 16 * 1024 * 1024  # the cap on one answer (docs/models.md)
HUGE_LIST = 40 * 1024 * 1024  # bytes of the model list that is far too large
LONG_ID = "m" * (5 * 1024 * 1024)
ESCAPE_ID = "evil\x1b]52;c;aGk=\x07"


class HostileServer:
    """An OpenAI-compatible server with one bad habit (``mode``); it counts the body bytes it sent."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.sent = 0            # body bytes written (and drained) to clients
        self.finished = False    # the whole of an endless or huge answer was sent (a client read it all)
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.ready.wait(10)
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.port = self.server.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    def close(self) -> None:
        async def stop():
            self.server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()
        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    async def _serve(self, reader, writer) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ln)}
                body = await reader.readexactly(int(headers.get("content-length", 0)))
                request = json.loads(body) if body else {}
                if path.endswith("/models"):
                    await self._models(writer)
                else:
                    await self._chat(writer, request)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _send(self, writer, payload: dict) -> None:
        data = json.dumps(payload).encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
        await writer.drain()

    async def _chunked(self, writer, content_type: str, parts) -> None:
        """An answer sent as it is made, chunk by chunk; ``parts`` yields (bytes, seconds to wait after)."""
        writer.write(f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        async for part, pause in parts:
            writer.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            await writer.drain()
            self.sent += len(part)
            if pause:
                await asyncio.sleep(pause)
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        self.finished = True

    async def _models(self, writer) -> None:
        if self.mode == "trickle":   # a model list a byte at a time, never ending: each read comes in time
            async def trickle():
                yield b'{"object": "list", "data": [', 0
                while True:
                    yield b" ", 0.25
            await self._chunked(writer, "application/json", trickle())
        elif self.mode == "huge list":   # made as it is sent: the server holds none of it
            async def huge():
                yield b'{"object": "list", "data": [{"id": "fake-model", "object": "model"}', 0
                entry = b', {"id": "model-%08d", "object": "model", "owned_by": "nobody"}'
                block = b"".join(entry % i for i in range(1000))
                for _ in range(HUGE_LIST // len(block)):
                    yield block, 0
                yield b"]}", 0
            await self._chunked(writer, "application/json", huge())
        elif self.mode == "gzip bomb":   # 40 MB of model list in about 100 KB of gzip
            entries = b'{"id": "fake-model", "object": "model"}' + b', {"id": "m", "object": "model"}' * (
                HUGE_LIST // 32)
            data = gzip.compress(b'{"object": "list", "data": [' + entries + b"]}", compresslevel=9)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
                         + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
            await writer.drain()
        elif self.mode == "brotli":   # an encoding not asked for, whose expansion nothing bounds
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: br\r\n"
                         b"Content-Length: 4\r\n\r\n\x0b\x00\x80\x03")
            await writer.drain()
        elif self.mode == "long ids":
            await self._send(writer, {"object": "list", "data": [
                {"id": LONG_ID, "object": "model"}, {"id": ESCAPE_ID, "object": "model"},
                {"id": "fine-model", "object": "model"}]})
        else:
            await self._send(writer, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    async def _chat(self, writer, request: dict) -> None:
        if self.mode == "huge reply":   # one answer of 40 MB, made as it is sent
            async def huge():
                yield b'{"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": [{"index": 0,', 0
                yield b' "finish_reason": "stop", "message": {"role": "assistant", "content": "> look ', 0
                for _ in range(HUGE_LIST // 65536):
                    yield b"x" * 65536, 0
                yield b'"}}]}', 0
            await self._chunked(writer, "application/json", huge())
            return
        if self.mode == "trickled reply":   # an answer a byte at a time, never ending: each read comes in time
            async def trickle():
                yield b'{"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": {"content": "', 0
                while True:
                    yield b"x", 0.25
            await self._chunked(writer, "application/json", trickle())
            return
        prompt = sum(len(str(m.get("content") or "")) for m in request.get("messages", [])) // 4
        if request.get("stream") and self.mode == "endless stream":   # well-formed events, for ever
            async def endless():
                n = 0
                while True:
                    n += 1
                    event = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": request["model"],
                             "choices": [{"index": 0, "delta": {"content": f" word{n}"}, "finish_reason": None}]}
                    yield f"data: {json.dumps(event)}\n\n".encode(), 0.01
            await self._chunked(writer, "text/event-stream", endless())
            return
        if request.get("stream"):
            events = [{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": request["model"],
                       "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"},
                                    "finish_reason": "stop"}]},
                      {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": request["model"],
                       "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": 1,
                                                "total_tokens": prompt + 1}}]
            body = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"

            async def once():
                yield body, 0
            await self._chunked(writer, "text/event-stream", once())
            return
        await self._send(writer, {
            "id": "c", "object": "chat.completion", "created": 0, "model": request["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": 1, "total_tokens": prompt + 1}})


@pytest.fixture
def hostile(request):
    made = []

    def make(mode: str) -> HostileServer:
        made.append(HostileServer(mode))
        return made[-1]
    yield make
    for server in made:
        server.close()


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    from tui_adventure.players.backends.learned import cache_path, forget

    forget()
    yield cache_path()
    forget()


def probe(capsys, *args) -> tuple[int | None, str, str]:
    """``adventure models probe ARGS`` in-process on a thread of its own: (exit code, or None when it
    had not returned after ``HARD_LIMIT`` seconds; stdout; stderr)."""
    result: list = []
    thread = threading.Thread(target=lambda: result.append(main(["models", "probe", *args])), daemon=True)
    thread.start()
    thread.join(HARD_LIMIT)
    out = capsys.readouterr()
    return (result[0] if result else None), out.out, out.err


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["trickle", "endless stream"])
def test_the_timeout_is_a_deadline_for_the_whole_request(hostile, cache_home, capsys, mode):
    server = hostile(mode)
    code, out, err = probe(capsys, server.url, "--timeout", "1.5")
    assert code == 2, (code, err)   # it returned, and said why in one line
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"adventure models probe: {server.url}: no whole answer within 1.5 s"), err
    assert not server.finished


def test_a_huge_model_list_is_not_read_past_the_cap(hostile, cache_home, capsys):
    server = hostile("huge list")
    code, out, err = probe(capsys, server.url, "--timeout", "30")
    assert code == 2, (code, err)
    assert err.count("\n") == 1 and "larger than 16 MB" in err, err
    assert not server.finished and server.sent < MAX_BODY + 8 * 1024 * 1024   # socket buffers, at most


@pytest.mark.parametrize("mode", ["gzip bomb", "brotli"])
def test_a_compressed_answer_is_capped_as_decoded(hostile, cache_home, capsys, mode):
    server = hostile(mode)
    code, out, err = probe(capsys, server.url, "--timeout", "30")
    assert (code, out) == (2, "")
    assert err.count("\n") == 1, err
    assert ("larger than 16 MB" if mode == "gzip bomb" else "the encoding 'br', which was not asked for") in err


def test_a_model_id_too_long_or_with_control_characters_is_never_shown_or_kept(hostile, cache_home, capsys):
    server = hostile("long ids")
    code, out, err = probe(capsys, server.url, "--timeout", "30")
    assert code == 0, err
    assert out.splitlines()[0] == f"{server.url}  model fine-model"
    assert LONG_ID[:300] not in out + err and "\x1b" not in out + err
    kept = cache_home.read_text(encoding="utf-8")
    assert "fine-model" in kept and len(kept) < 4096 and "\x1b" not in kept and "\\u001b" not in kept


def test_a_server_listing_only_unusable_ids_is_one_line_and_nothing_is_kept(hostile, cache_home, capsys,
                                                                             monkeypatch):
    server = hostile("long ids")
    monkeypatch.setattr(HostileServer, "_models", _only_bad_ids)
    code, out, err = probe(capsys, server.url, "--timeout", "30")
    assert (code, out) == (2, "")
    assert err == (f"adventure models probe: {server.url} lists no usable model id (each is longer than 256"
                   " characters, holds a control character or is not text): name one with --model\n")
    assert not cache_home.exists()


async def _only_bad_ids(self, writer) -> None:
    await self._send(writer, {"object": "list", "data": [{"id": LONG_ID}, {"id": ESCAPE_ID}, {"id": 7}]})


@pytest.mark.parametrize("model", [LONG_ID, ESCAPE_ID], ids=["5 MB", "an escape"])
def test_a_model_named_on_the_command_line_is_checked_too(cache_home, capsys, model):
    code, out, err = probe(capsys, "http://127.0.0.1:9/v1", "--model", model)
    assert (code, out) == (2, "")
    assert err == "adventure models probe: --model must be at most 256 printable characters\n"


@pytest.mark.parametrize("mode", ["huge reply", "trickled reply"])
def test_a_model_players_answer_is_bounded_as_the_probes_is(hostile, monkeypatch, tmp_path, mode):
    from conftest import TEST_WORLDS
    from model_env import configure_fake_gpt

    from tui_adventure.batches.episodes import play_episode
    from tui_adventure.engine.loading.loader import load_world
    from tui_adventure.gamemaster.episode import PlayerFailed
    from tui_adventure.players import make_player
    from tui_adventure.players.backends.clients import close_clients

    server = hostile(mode)
    configure_fake_gpt(monkeypatch, tmp_path, server)
    world = load_world(TEST_WORLDS / "mini.yaml")
    player = make_player("fake-gpt", world, "text", timeout=1.5, max_retries=0, retry_delay=0.01)

    async def play():
        try:
            await play_episode(world, player, tmp_path / "r")
        except PlayerFailed as exc:   # recorded in error.json
            return str(exc)
        finally:
            await close_clients()
    done: list = []
    thread = threading.Thread(target=lambda: done.append(asyncio.run(play())), daemon=True)
    thread.start()
    thread.join(HARD_LIMIT)
    assert done, "the episode was still waiting for its model"
    errors = list((tmp_path / "r").rglob("error.json"))
    assert len(errors) == 1 and not server.finished
    said = json.loads(errors[0].read_text())["message"]
    assert ("larger than 16 MB" if mode == "huge reply" else "timed out") in said, said
