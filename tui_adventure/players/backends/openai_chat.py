"""OpenAI's chat completions API through the ``openai`` SDK: OpenAI, OpenRouter, and every
OpenAI-compatible server (vLLM, llama.cpp's server, Ollama, LM Studio).

The SDK does the retrying where it can (429, 5xx, timeouts and refused
connections, with backoff and the server's Retry-After), so the client is
made with the model's ``timeout`` and ``max_retries``. What it cannot retry,
a stream that breaks off or a body that is not JSON, is raised as
``Transient`` for the player to ask again. A request without a stream
callback is sent unstreamed, so its raw response is exactly what clemcore
records (``model_dump(mode="json")``); a streamed one is put back together
into that same shape. One module serves the ``openai``, ``openai_compatible``
and ``openrouter`` entries of the table; what differs between them is in
their entries.
"""

from __future__ import annotations

import time

import openai
from openai import AsyncStream
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from . import BACKENDS
from .clients import shared_client
from .completion import Completion, ModelError, ToolCall, Transient, is_transport_error


def _client(spec):
    def make():
        return openai.AsyncOpenAI(api_key=spec.api_key, base_url=spec.base_url, organization=spec.organization,
                                  timeout=spec.timeout, max_retries=spec.max_retries)
    return shared_client(("openai",) + spec.client_key(), make)


def request_args(spec, messages: list[dict], tools: list[dict], tool_choice) -> dict:
    kwargs: dict = {"model": spec.model_id, "messages": messages,
                    **{k: v for k, v in spec.gen_args.items() if v is not None}}
    config = spec.config or {}
    if config.get("reasoning_model"):   # as clemcore: reasoning models take no max_tokens
        kwargs.pop("max_tokens", None)
    if "extra_body" in config:
        kwargs["extra_body"] = config["extra_body"]
    elif BACKENDS[spec.backend].default_body:
        kwargs["extra_body"] = BACKENDS[spec.backend].body()
    if tools:
        kwargs["tools"] = [{"type": "function", "function": t} for t in tools]
        kwargs["tool_choice"] = config.get("tool_choice", tool_choice)
    return kwargs


async def complete(spec, messages: list[dict], tools: list[dict] | None = None, tool_choice="required",
                   stream=None) -> Completion:
    client = _client(spec)
    kwargs = request_args(spec, messages, tools or [], tool_choice)
    try:
        if stream is None or config_says_no_stream(spec):
            response = await _post(client, kwargs, streamed=False)
            return _from_response(response, messages)
        chunks = await _post(client, {**kwargs, "stream": True, "stream_options": {"include_usage": True}},
                             streamed=True)
    except (openai.APIStatusError, openai.APIConnectionError) as exc:
        raise ModelError(f"{type(exc).__name__}: {exc}") from exc   # the SDK has retried already
    except (ValueError, openai.APIResponseValidationError) as exc:
        raise Transient(f"unreadable response: {exc}") from exc
    try:
        return await _from_stream(chunks, messages, stream, budget=spec.timeout)
    except (ValueError, AssertionError, openai.APIError) as exc:
        raise Transient(f"{type(exc).__name__} while streaming: {exc}") from exc
    except Exception as exc:
        if is_transport_error(exc):
            raise Transient(f"connection lost while streaming: {exc}") from exc
        raise


async def _post(client, kwargs: dict, streamed: bool):
    """``chat.completions.create`` without its request transform.

    ``create`` first walks every message through the SDK's typed transform,
    about 20 ms of CPU for a twenty-message clembench request: with a dozen
    episodes at once the client, not the model, sets the pace. Our messages
    are plain JSON already, so they go straight to ``client.post`` (the SDK's
    documented way to send a body as is), with the SDK's own response types,
    retries and timeouts.
    """
    body = dict(kwargs)
    body.update(body.pop("extra_body", None) or {})
    return await client.post("/chat/completions", body=body, cast_to=ChatCompletion, stream=streamed,
                             stream_cls=AsyncStream[ChatCompletionChunk])


def config_says_no_stream(spec) -> bool:
    return (spec.config or {}).get("stream") is False


def _from_response(response, messages) -> Completion:
    if not getattr(response, "choices", None):
        raise Transient(f"a response without choices: {str(response)[:200]}")
    message = response.choices[0].message
    calls = [ToolCall(c.id or f"call_{i}", c.function.name, c.function.arguments or "")
             for i, c in enumerate(message.tool_calls or []) if getattr(c, "function", None)]
    usage = response.usage
    content = message.content or ""
    raw = response.model_dump(mode="json")
    if len(content) > MAX_REPLY_CHARS:   # a reply is a command or two: keep the records (and the next prompt) small
        content = content[:MAX_REPLY_CHARS]
        raw["choices"][0]["message"]["content"] = content + " [cut by tui-adventure at 64 KB]"
    return Completion(text=content, tool_calls=calls, raw=raw,
                      sent=messages, tokens_in=getattr(usage, "prompt_tokens", None),
                      tokens_out=getattr(usage, "completion_tokens", None))


MAX_REPLY_CHARS = 64 * 1024   # a reply is a command or two; past this the rest is not read (nor recorded)


async def _from_stream(chunks, messages, stream, budget: float | None = None) -> Completion:
    """The streamed answer put back together, within ``budget`` seconds in all: the SDK's timeout is
    per read, so a server trickling a byte a second would otherwise never time out."""
    raw: dict = {"id": None, "object": "chat.completion", "created": int(time.time()), "model": None,
                 "system_fingerprint": None}
    text: list[str] = []
    size = 0
    calls: dict[int, dict] = {}
    finish = None
    usage = None
    started = time.monotonic()
    async for chunk in chunks:
        if budget is not None and time.monotonic() - started > budget:
            await chunks.close()
            raise Transient(f"the answer took longer than the {budget:g} s the model's timeout allows")
        if size > MAX_REPLY_CHARS:
            finish = "length (cut by tui-adventure at 64 KB)"
            await chunks.close()
            break
        if raw["id"] is None:
            raw.update(id=chunk.id, created=chunk.created or raw["created"], model=chunk.model,
                       system_fingerprint=getattr(chunk, "system_fingerprint", None))
        if getattr(chunk, "usage", None):
            usage = chunk.usage.model_dump(mode="json")
        for choice in chunk.choices or []:
            if choice.index != 0:
                continue
            delta = choice.delta
            if delta is not None and delta.content:
                text.append(delta.content)
                size += len(delta.content)
                stream(delta.content)
            for tc in (delta.tool_calls if delta is not None else None) or []:
                slot = calls.setdefault(tc.index, {"id": None, "type": "function",
                                                   "function": {"name": "", "arguments": ""}})
                if tc.id:
                    slot["id"] = tc.id
                if tc.function is not None:
                    slot["function"]["name"] += tc.function.name or ""
                    slot["function"]["arguments"] += tc.function.arguments or ""
            if choice.finish_reason:
                finish = choice.finish_reason
    if raw["id"] is None:
        raise Transient("the stream ended before any answer")
    message: dict = {"role": "assistant", "content": "".join(text) or None}
    ordered = [calls[i] for i in sorted(calls)]
    for i, c in enumerate(ordered):
        c["id"] = c["id"] or f"call_{i}"
    if ordered:
        message["tool_calls"] = ordered
    raw["choices"] = [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}]
    raw["usage"] = usage
    return Completion(text="".join(text), tool_calls=[ToolCall(c["id"], c["function"]["name"],
                                                               c["function"]["arguments"]) for c in ordered],
                      raw=raw, sent=messages, tokens_in=(usage or {}).get("prompt_tokens"),
                      tokens_out=(usage or {}).get("completion_tokens"))
