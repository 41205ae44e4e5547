"""A scripted stand-in for an OpenAI-compatible server and Anthropic's ``/v1/messages``.

The model players are tested against the real ``openai`` and ``anthropic``
SDKs, so the thing on the other end must speak real HTTP: keep-alive,
chunked server-sent events, status codes with retry headers. This server is
asyncio over raw sockets (standard library only) on 127.0.0.1 with a random
port, run in a thread of its own so a test's event loop and the server's
never block each other. Each request takes the next item of the script (or
asks the ``responder`` when the script is empty); an item is a reply text,
a ``ToolCalls``, or a fault: ``Status`` (429, 500, ...), ``Malformed`` JSON,
``Stall`` (answer nothing for a while), ``Drop`` (close the connection at
once), ``DropMidStream`` (start streaming, then hang up) or ``CutStream``
(no finish reason). Flags give it real servers' habits (``strict``,
``no_system``, ``drop_system``, ``ignore_tools``, ``escape_quotes``, ...).

Run as a script (``python tests/fake_llm_server.py --delay 0.05 --turns 10``)
it serves in its own process and prints its port: the batch benchmark uses
that so the server's work does not share a GIL with the client's.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Callable


# -- what a request can get ------------------------------------------------------------
@dataclass
class ToolCalls:
    calls: list[tuple[str, dict | str]]   # (tool name, arguments as a dict, or a raw string)
    content: str | None = None


@dataclass
class Status:
    code: int
    retry_after_ms: int | None = 10       # small: the SDKs honour it, so tests stay fast
    message: str = "scripted failure"


@dataclass
class Malformed:
    """A 200 whose body is not JSON (or, when streaming, an event that is not)."""


@dataclass
class Raw:
    """A 200 whose JSON body is exactly ``body`` (a server's own dialect of the API)."""
    body: dict


@dataclass
class Stall:
    seconds: float = 5.0


@dataclass
class Trickle:
    """Stream ``text`` one character every ``delay`` seconds (each read arrives in time; the whole never)."""
    text: str
    delay: float = 0.5


@dataclass
class Drop:
    """Close the connection as soon as the request is read, without a status line."""


@dataclass
class DropMidStream:
    """Send the first part of a streamed answer, then close the connection."""
    text: str = "> take"


@dataclass
class EmptyStream:
    """Answer a streamed request with the headers of a stream and nothing in it (llama.cpp's server,
    asked to stream tool calls it cannot stream)."""


@dataclass
class CutStream:
    """Stream ``text``, then ``data: [DONE]`` with no finish reason: llama-cpp-python's server cuts a
    stream off so when another request arrives (``interrupt_requests``, its default)."""
    text: str = "> ta"


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: dict

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])


_ids = itertools.count(1)


def _tokens(obj) -> int:
    """A rough token count (four characters a token), so usage figures move like real ones."""
    return max(1, len(json.dumps(obj)) // 4)


def _pieces(text: str, n: int = 3) -> list[str]:
    if not text:
        return []
    size = max(1, -(-len(text) // n))
    return [text[i:i + size] for i in range(0, len(text), size)]


def _escaped(args: dict) -> str:
    """Arguments as chatml-function-calling's model writes them: JSON whose strings hold HTML escapes
    (Jinja's: ``&#34;`` for a quote), since the history it was shown had them."""
    def esc(v):
        if isinstance(v, str):
            return (v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
                    .replace("'", "&#39;"))
        return [esc(x) for x in v] if isinstance(v, list) else v
    return json.dumps({k: esc(v) for k, v in args.items()})


def _args_text(args) -> str:
    return args if isinstance(args, str) else json.dumps(args)


@dataclass
class FakeLLMServer:
    responder: Callable[[Received], object] | None = None
    delay: float = 0.0                      # seconds before every answer (a model "thinking")
    script_items: list = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    # As strict as a real server ("llama.cpp", "vllm", "ollama"): what each refuses, as seen from
    # llama-cpp-python 0.3.36's server, vLLM's and Ollama's OpenAI APIs (docs/models.md).
    strict: str | None = None
    n_ctx: int | None = None                # a context size: a longer prompt is refused as the server words it
    no_system: bool = False                 # a chat template without a system role
    # Behaviours of real servers with some chat formats (docs/models.md, "Servers differ"):
    drop_system: bool = False               # a template that drops the system message without a word (Gemma's)
    ignore_tools: bool = False              # a template without tool calling: tools offered, text answered
    escape_quotes: bool = False             # chatml-function-calling: the model writes "&#34;" in its arguments
    slow_first: float = 0.0                 # seconds the first completion takes (a long prompt evaluated on a CPU)
    models: tuple = ("fake-model",)         # what GET /models lists

    def __post_init__(self) -> None:
        self.port = 0
        self.in_flight = 0
        self.max_in_flight = 0                # the most requests answered at once (batch concurrency)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._answered = 0

    # -- control (from the test's thread) ----------------------------------------------
    @property
    def url(self) -> str:
        """The OpenAI-style base URL (the SDK appends /chat/completions)."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root(self) -> str:
        """The Anthropic-style base URL (the SDK appends /v1/messages)."""
        return f"http://127.0.0.1:{self.port}"

    def script(self, *items) -> "FakeLLMServer":
        with self._lock:
            self.script_items.extend(items)
        return self

    def start(self) -> "FakeLLMServer":
        ready = threading.Event()

        def main() -> None:
            self._loop = asyncio.new_event_loop()
            asyncio.set_event_loop(self._loop)
            self._server = self._loop.run_until_complete(
                asyncio.start_server(self._handle, "127.0.0.1", 0))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            self._loop.run_forever()
            self._server.close()
            pending = asyncio.all_tasks(self._loop)
            for task in pending:
                task.cancel()
            self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            self._loop.close()

        self._thread = threading.Thread(target=main, name="fake-llm-server", daemon=True)
        self._thread.start()
        ready.wait(5)
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)

    def __enter__(self) -> "FakeLLMServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def _next(self, request: Received):
        with self._lock:
            self.requests.append(request)
            refusal = self._refusal(request)
            if refusal is not None:
                return refusal
            if self.script_items:
                return self.script_items.pop(0)
        if self.responder is not None:
            return self.responder(request)
        return "> done"

    def _refusal(self, request: Received):
        """What a strict server answers instead of a completion, or None when it takes the request."""
        body, messages = request.body, request.messages
        if request.path.endswith("/messages"):
            return None
        if self.no_system and any(m.get("role") == "system" for m in messages):
            return Status(500, None, "System role not supported")
        if self.n_ctx is not None and _tokens(messages) > self.n_ctx:
            words = {"llama.cpp": f"Requested tokens ({_tokens(messages)}) exceed context window of {self.n_ctx}",
                     "vllm": f"This model's maximum context length is {self.n_ctx} tokens. However, you requested"
                             f" {_tokens(messages)} tokens in the messages. Please reduce the length of the messages."}
            return Status(400, None, words.get(self.strict or "vllm", words["vllm"]))
        if self.strict == "llama.cpp":
            for i, m in enumerate(messages):
                if m.get("role") == "assistant" and m.get("content") is None:
                    return Status(400, None, f"messages.{i}.content: Input should be a valid string")
                for call in m.get("tool_calls") or []:   # the template renders the arguments as JSON
                    try:
                        json.loads(call["function"]["arguments"])
                    except (ValueError, KeyError, TypeError):
                        return Status(500, None, f"messages.{i}: tool call arguments are not JSON")
            if body.get("tools"):
                if body.get("tool_choice") == "required":
                    return Status(500, None, "assert tool_choice != 'required'")   # the server's assert
                if body.get("stream"):
                    return EmptyStream()   # "Automatic streaming tool choice is not supported"
        return None

    # -- HTTP -----------------------------------------------------------------------------
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                _method, path, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                try:
                    data = json.loads(body or b"{}")
                except ValueError:
                    data = {}
                request = Received(path, headers, data)
                if _method == "GET" and path.endswith("/models"):
                    listed = {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "fake"}
                                                          for m in self.models]}
                    await self._send(writer, 200, json.dumps(listed).encode())
                    continue
                item = self._next(request)
                self._answered += 1
                slow = self.slow_first if self._answered == 1 else 0.0
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                try:
                    if self.delay or slow:
                        await asyncio.sleep(self.delay + slow)
                    keep = await self._answer(writer, request, item)
                finally:
                    self.in_flight -= 1
                if not keep:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.CancelledError:   # shutting down; returning (not raising) keeps 3.11's streams quiet
            pass
        finally:
            writer.close()

    async def _answer(self, writer, request: Received, item) -> bool:
        """Write one answer; False when the connection is to be closed."""
        anthropic = request.path.endswith("/messages")
        if isinstance(item, Drop):
            return False
        if isinstance(item, Stall):
            await asyncio.sleep(item.seconds)
            return False
        if isinstance(item, Status):
            if anthropic:
                kind = "rate_limit_error" if item.code == 429 else "api_error"
                payload = {"type": "error", "error": {"type": kind, "message": item.message}}
            else:
                payload = {"error": {"message": item.message, "type": "server_error", "code": item.code}}
            extra = {"retry-after-ms": str(item.retry_after_ms)} if item.retry_after_ms is not None else {}
            await self._send(writer, item.code, json.dumps(payload).encode(), extra=extra)
            return True
        stream = bool(request.body.get("stream"))
        if isinstance(item, EmptyStream):
            await self._stream(writer, [], close=True)
            return False
        if isinstance(item, Raw):
            await self._send(writer, 200, json.dumps(item.body).encode())
            return True
        if isinstance(item, Malformed):
            if stream:
                await self._stream(writer, [b'data: {"choices": [{"delta": {"content": "> ta\n\n'])
                return False
            await self._send(writer, 200, b'{"id": "chatcmpl-x", "choices": [{"message": ')
            return True
        if isinstance(item, Trickle):
            events = self._openai_chunks(request, item.text, None)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                         b"Transfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n")
            for event in events:
                writer.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
                await writer.drain()
                await asyncio.sleep(item.delay)
            return False
        if isinstance(item, CutStream):
            events = self._openai_chunks(request, item.text, None)
            await self._stream(writer, [e for e in events if b'"finish_reason": "stop"' not in e])
            return True
        if isinstance(item, DropMidStream):
            events = (self._anthropic_events(request, item.text, None) if anthropic
                      else self._openai_chunks(request, item.text, None))
            await self._stream(writer, events[:2], finish=False)
            return False
        text, calls = (item.content, item.calls) if isinstance(item, ToolCalls) else (str(item), None)
        if calls and (self.ignore_tools or not request.body.get("tools")):   # the model never saw the tools
            text, calls = text or " ".join(["I will", *[f"{name} {_args_text(args)}" for name, args in calls]]), None
        if calls and self.escape_quotes:
            calls = [(name, _escaped(args) if isinstance(args, dict) else args) for name, args in calls]
        if anthropic:
            if stream:
                await self._stream(writer, self._anthropic_events(request, text, calls))
            else:
                await self._send(writer, 200, json.dumps(self._anthropic_message(request, text, calls)).encode())
        elif stream:
            await self._stream(writer, self._openai_chunks(request, text, calls))
        else:
            await self._send(writer, 200, json.dumps(self._openai_completion(request, text, calls)).encode())
        return True

    @staticmethod
    async def _send(writer, code: int, body: bytes, extra: dict | None = None) -> None:
        reason = {200: "OK", 429: "Too Many Requests", 500: "Internal Server Error",
                  503: "Service Unavailable", 529: "Overloaded"}.get(code, "Error")
        head = [f"HTTP/1.1 {code} {reason}", "Content-Type: application/json",
                f"Content-Length: {len(body)}", "Connection: keep-alive"]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
        await writer.drain()

    @staticmethod
    async def _stream(writer, events: list[bytes], finish: bool = True, close: bool = False) -> None:
        # a whole answer on a connection closed after it says so, as a real server does: a client
        # that pools connections must not send the next request down it
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                     + (b"Connection: close" if close else b"Connection: keep-alive") + b"\r\n\r\n")
        for event in events:
            writer.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            await writer.drain()
        if finish:
            writer.write(b"0\r\n\r\n")
        await writer.drain()

    def _prompt_tokens(self, request: Received) -> int:
        """What the server counts: the messages its template keeps, and the tools when it renders them."""
        messages = [m for m in request.messages if not (self.drop_system and m.get("role") == "system")]
        tools = request.body.get("tools") if not self.ignore_tools else None
        return _tokens(messages) + (_tokens(tools) if tools else 0)

    # -- OpenAI chat completions -------------------------------------------------------
    @staticmethod
    def _openai_calls(calls) -> list[dict]:
        return [{"id": f"call_{next(_ids)}", "type": "function",
                 "function": {"name": name, "arguments": _args_text(args)}} for name, args in calls]

    def _openai_completion(self, request: Received, text, calls) -> dict:
        message: dict = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = self._openai_calls(calls)
        out = _tokens(message)
        return {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion", "created": int(time.time()),
                "model": request.body.get("model", "fake"), "system_fingerprint": "fp_fake",
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": self._prompt_tokens(request), "completion_tokens": out,
                          "total_tokens": self._prompt_tokens(request) + out}}

    def _openai_chunks(self, request: Received, text, calls) -> list[bytes]:
        base = {"id": f"chatcmpl-{next(_ids)}", "object": "chat.completion.chunk", "created": int(time.time()),
                "model": request.body.get("model", "fake"), "system_fingerprint": "fp_fake"}

        def chunk(delta, finish=None) -> bytes:
            data = {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
            return b"data: " + json.dumps(data).encode() + b"\n\n"

        out = [chunk({"role": "assistant", "content": ""})]
        out += [chunk({"content": p}) for p in _pieces(text or "")]
        for i, call in enumerate(self._openai_calls(calls or [])):
            args = call["function"]["arguments"]
            half = len(args) // 2
            out.append(chunk({"tool_calls": [{"index": i, "id": call["id"], "type": "function",
                                              "function": {"name": call["function"]["name"], "arguments": ""}}]}))
            out += [chunk({"tool_calls": [{"index": i, "function": {"arguments": part}}]})
                    for part in (args[:half], args[half:]) if part]
        out.append(chunk({}, "tool_calls" if calls else "stop"))
        if (request.body.get("stream_options") or {}).get("include_usage") and self.strict not in ("llama.cpp",
                                                                                                 "ollama"):
            p, c = self._prompt_tokens(request), _tokens([text, calls])
            out.append(b"data: " + json.dumps({**base, "choices": [], "usage": {
                "prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}}).encode() + b"\n\n")
        out.append(b"data: [DONE]\n\n")
        return out

    # -- Anthropic messages --------------------------------------------------------------
    @staticmethod
    def _anthropic_blocks(text, calls) -> list[dict]:
        blocks = [{"type": "text", "text": text}] if text else []
        for name, args in calls or []:
            blocks.append({"type": "tool_use", "id": f"toolu_{next(_ids)}", "name": name,
                           "input": args if isinstance(args, dict) else {}})
        return blocks

    def _anthropic_message(self, request: Received, text, calls) -> dict:
        return {"id": f"msg_{next(_ids)}", "type": "message", "role": "assistant",
                "model": request.body.get("model", "fake"), "content": self._anthropic_blocks(text, calls),
                "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": _tokens(request.messages), "output_tokens": _tokens([text, calls])}}

    def _anthropic_events(self, request: Received, text, calls) -> list[bytes]:
        def event(kind: str, data: dict) -> bytes:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()

        message = self._anthropic_message(request, text, calls)
        blocks = message["content"]
        start = {**message, "content": [], "stop_reason": None,
                 "usage": {"input_tokens": message["usage"]["input_tokens"], "output_tokens": 1}}
        out = [event("message_start", {"message": start})]
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                out.append(event("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}}))
                out += [event("content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": p}})
                        for p in _pieces(block["text"])]
            else:
                out.append(event("content_block_start", {"index": i, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}))
                args = json.dumps(block["input"])
                out += [event("content_block_delta", {"index": i, "delta": {"type": "input_json_delta",
                                                                             "partial_json": p}})
                        for p in _pieces(args, 2)]
            out.append(event("content_block_stop", {"index": i}))
        out.append(event("message_delta", {"delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                                           "usage": {"output_tokens": message["usage"]["output_tokens"]}}))
        out.append(event("message_stop", {}))
        return out


def done_after(turns: int, command: str = "> examine bed") -> Callable[[Received], str]:
    """A responder that plays ``command`` and says ``> done`` once ``turns`` replies were given."""
    def respond(request: Received) -> str:
        replies = sum(1 for m in request.messages if m.get("role") == "assistant")
        return "> done" if replies + 1 >= turns else command
    return respond


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--delay", type=float, default=0.05, help="seconds before every answer")
    ap.add_argument("--turns", type=int, default=10, help="replies per episode before '> done'")
    args = ap.parse_args()
    server = FakeLLMServer(responder=done_after(args.turns), delay=args.delay).start()
    print(server.port, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()

