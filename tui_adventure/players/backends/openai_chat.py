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

import json
import time

import openai
import pydantic
from openai import AsyncStream
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from .bounded import Bounds, TooLarge, bound_broken, bounded, out_of_bounds
from .clients import shared_client
from .completion import (
    Completion, ContextFull, ModelError, Refused, ToolCall, Transient, connection_refused, estimate_tokens,
    is_transport_error, refused_at, says_context_full,
)
from .learned import facts_for
from .routing import default_body


def _client(spec):
    def make():
        # The SDK's aiohttp transport (its ``aiohttp`` extra, a dependency of ours): a third less
        # client CPU per request than its default httpx stack, which a batch of many episodes
        # against a fast server is bound by. Retries stay the SDK's own; its timeout is a deadline for
        # each whole request and an answer's size is capped (``bounded.py``: a reply is a stranger's).
        return openai.AsyncOpenAI(api_key=spec.api_key, base_url=spec.base_url, organization=spec.organization,
                                  timeout=spec.timeout, max_retries=spec.max_retries,
                                  http_client=bounded(openai.DefaultAioHttpClient)(timeout=spec.timeout))
    return shared_client(("openai",) + spec.client_key(), make)


def request_args(spec, messages: list[dict], tools: list[dict], tool_choice) -> dict:
    kwargs: dict = {"model": spec.model_id, "messages": messages,
                    **{k: v for k, v in spec.gen_args.items() if v is not None}}
    config = spec.config or {}
    if config.get("reasoning_model"):   # as clemcore: reasoning models take no max_tokens
        kwargs.pop("max_tokens", None)
    if "extra_body" in config:
        kwargs["extra_body"] = config["extra_body"]
    elif (body := default_body(spec.backend)) is not None:
        kwargs["extra_body"] = body
    if tools:
        kwargs["tools"] = [{"type": "function", "function": t} for t in tools]
        kwargs["tool_choice"] = tool_choice
    return kwargs


async def complete(spec, messages: list[dict], tools: list[dict] | None = None, tool_choice="required",
                   stream=None) -> Completion:
    """One answer. With tools, the tool choice (and whether to stream) steps down on a refusal:
    ``required``, then ``act`` by name (one tool), then ``auto``; what worked is learned."""
    facts = facts_for(spec)
    result = await _complete(spec, facts, messages, tools, tool_choice, stream)
    if messages and messages[0].get("role") == "system":   # which form the prompt went in
        result.options["system_message"] = result.sent[0].get("role") == "system"
    if facts.learned:
        result.options["learned"] = facts.learned
    return result


async def _complete(spec, facts, messages, tools, tool_choice, stream) -> Completion:
    if messages and messages[0].get("role") == "system" and facts.system is False:
        messages = merge_system(messages)
    streamed = stream is not None and not config_says_no_stream(spec)
    if not tools:
        return await _ask_with_system(spec, facts, messages, [], None, stream if streamed else None)
    if not facts.stream_tools:
        streamed = False
    configured = (spec.config or {}).get("tool_choice")
    if tool_choice == "auto":   # tools offered, none asked for (a voiced character): nothing to step down to
        configured = "auto"     # nor to learn, so a player asking the same server keeps its "required"
    settled = configured is not None or facts.tool_choice is not None
    choices = [configured] if configured is not None else tool_choices(tools, tool_choice, facts)
    tried: list[str] = []
    for choice in choices:
        stream_refused = False
        for streaming in ((True, False) if streamed else (False,)):
            try:
                result = await _ask_with_system(spec, facts, messages, tools, choice,
                                                stream if streaming else None, probe=not settled)
            except Refused as exc:
                tried.append(f"tool_choice {json.dumps(choice)}{' streamed' if streaming else ''}: {exc}")
                stream_refused = stream_refused or streaming
                continue
            learned = (configured is None and facts.tool_choice != choice) or (stream_refused and not streaming)
            if configured is None:
                facts.tool_choice = choice
            if stream_refused and not streaming:
                facts.stream_tools = False
            if learned:
                facts.remember()
            result.options.update(tool_choice=choice, stream=streaming)
            return result
    raise ModelError(f"{where(spec)} refused every way of asking for a tool call ({'; '.join(tried)}):"
                     " play in --mode text, or set tool_choice in the model's registry entry")


def tool_choices(tools: list[dict], asked, facts) -> list:
    """The tool choices to try, in order, starting with the one this server took before."""
    order = [asked]
    if len(tools) == 1:
        order.append({"type": "function", "function": {"name": tools[0]["name"]}})
    order.append("auto")
    order = [c for i, c in enumerate(order) if c not in order[:i]]
    if facts.tool_choice in order:
        order = order[order.index(facts.tool_choice):]
    return order


def merge_system(messages: list[dict]) -> list[dict]:
    """The system message put in front of the first user message (for servers that refuse the role)."""
    system, first, *rest = messages
    if first.get("role") != "user":
        return [{"role": "user", "content": system["content"]}, first, *rest]
    return [{**first, "content": f"{system['content']}\n\n{first['content']}"}, *rest]


def where(spec) -> str:
    return spec.base_url or f"the {spec.backend} API"


async def _ask_with_system(spec, facts, messages, tools, choice, stream, probe: bool = False) -> Completion:
    system = bool(messages) and messages[0].get("role") == "system"
    unknown = system and facts.system is None
    try:
        result = await _ask(spec, messages, tools, choice, stream, probe or (unknown and not facts.unchecked))
    except Refused as exc:
        if not (system and "system" in str(exc).lower()):
            raise
        facts.system = False   # this server's chat template has no system role: say it in the first message
        facts.remember()
        return await _ask(spec, merge_system(messages), tools, choice, stream, probe)
    if unknown and (result.tokens_estimated or result.tokens_in is None):
        facts.unchecked = True   # no usage to tell by (a stream): asked as is until an answer says
    elif unknown:
        assert result.tokens_in is not None   # an answer without a count took the branch above
        facts.system = not system_dropped(messages, tools, result.tokens_in)
        facts.remember()
        if not facts.system:   # the template dropped it without a word: the model never saw the prompt
            result = await _ask(spec, merge_system(messages), tools, choice, stream, probe)
            result.options["system_dropped"] = True
    return result


def system_dropped(messages: list[dict], tools, prompt_tokens: int) -> bool:
    """Whether the server counted a prompt without the system message (a template that drops the role
    silently: Gemma's on llama-cpp-python counts 194 tokens where about 390 were sent).

    Our count is about four characters a token; a real tokenizer is within a factor of about 1.4
    of it either way, so the prompt counts as dropped when the server's count is below the geometric
    mean of our counts with and without the system message. A system message too small a part of
    the prompt (under a third) tells nothing either way: it counts as kept."""
    counts = [estimate_tokens(str(m.get("content") or "")) for m in messages]
    tool_count = estimate_tokens(tools) if tools else 0
    whole, without = sum(counts) + tool_count, sum(counts[1:]) + tool_count
    if whole < 1.5 * without:
        return False
    return prompt_tokens < (whole * without) ** 0.5


async def _ask(spec, messages, tools, choice, stream, probe: bool = False) -> Completion:
    """One request. ``probe``: no SDK retries (a refusal is an answer, not a fault to wait out)."""
    client = _client(spec)
    if probe:
        client = client.with_options(max_retries=0)
    kwargs = request_args(spec, messages, tools, choice)
    try:
        if stream is None:
            response = await _post(client, kwargs, streamed=False)
            return _from_response(response, messages)
        chunks = await _post(client, {**kwargs, "stream": True, "stream_options": {"include_usage": True}},
                             streamed=True)
    except Bounds as exc:
        raise out_of_bounds(spec, exc, where(spec)) from exc
    except openai.APIStatusError as exc:
        raise _status_error(spec, exc, tools, probe) from exc
    except openai.APIConnectionError as exc:
        if isinstance(broken := bound_broken(exc), TooLarge):   # openai 2 hands it on as a connection error
            raise out_of_bounds(spec, broken, where(spec)) from exc
        if connection_refused(exc):   # nothing listening, though the SDK may call it a timeout
            said = refused_at(where(spec))
            raise (Transient(said) if probe else ModelError(said)) from exc
        if probe and isinstance(exc, openai.APITimeoutError):   # a long prompt still being read, perhaps
            raise Transient(f"timed out: no answer within {spec.timeout:g} s from {where(spec)}") from exc
        if probe:   # asked without the SDK's retries: the player waits and asks again
            raise Transient(f"cannot reach {where(spec)}: {type(exc).__name__}: {exc}") from exc
        raise ModelError(f"cannot reach {where(spec)}: {type(exc).__name__}: {exc}") from exc   # retried already
    except (ValueError, openai.APIResponseValidationError) as exc:
        raise Transient(f"unreadable response: {exc}") from exc
    try:
        return await _from_stream(chunks, messages, stream)
    except (Bounds, openai.APIError) as exc:
        if (broken := bound_broken(exc)) is not None:   # the SDK may hand it on as its own error
            raise out_of_bounds(spec, broken, where(spec)) from exc
        if tools:   # an error event in place of the answer: this server will not stream tool calls
            raise Refused(f"an error while streaming: {exc}") from exc
        raise Transient(f"{type(exc).__name__} while streaming: {exc}") from exc
    except Transient as exc:
        if tools and "before any answer" in str(exc):
            raise Refused(str(exc)) from exc
        raise
    except (ValueError, AssertionError) as exc:
        raise Transient(f"{type(exc).__name__} while streaming: {exc}") from exc
    except Exception as exc:
        if is_transport_error(exc):
            raise Transient(f"connection lost while streaming: {exc}") from exc
        raise


def _status_error(spec, exc, tools, probe: bool) -> Exception:
    """What a status code means for this request: context full, a refusal to ask otherwise, or a failure."""
    text = f"{exc.status_code} {_message_of(exc)}"
    if says_context_full(exc.status_code, text):
        return ContextFull(f"{where(spec)}: the conversation no longer fits the model's context ({text})")
    if exc.status_code in (400, 422, 500, 501) and ((tools and probe) or "system" in text.lower()):
        return Refused(text)   # (once a server has taken a tool choice, its failures are failures)
    if probe and (exc.status_code in (408, 409, 429) or exc.status_code >= 500):
        return Transient(text)   # asked without the SDK's retries: the player waits and asks again
    return ModelError(f"{where(spec)}: {type(exc).__name__}: {exc}")


def _message_of(exc) -> str:
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
        if isinstance(inner, str):
            return inner[:300]
    return str(exc.message)[:300]


async def _post(client, kwargs: dict, streamed: bool):
    """``chat.completions.create`` without its request transform.

    ``create`` first walks every message through the SDK's typed transform,
    about 20 ms of CPU for a twenty-message clembench request: with a dozen
    episodes at once the client, not the model, sets the pace. Our messages
    are plain JSON already, so they go to ``client.post`` (the SDK's
    documented way to send a body as is) encoded once, as the SDK would encode
    them (its deep copy and second encoding of a long history were a tenth
    of a request's CPU), with the SDK's own response types, retries and timeouts.
    """
    body = dict(kwargs)
    body.update(body.pop("extra_body", None) or {})
    content = encoded(body)
    url = f"{client.base_url}chat/completions"   # whole: the SDK then parses it once, not merges it thrice
    if streamed:
        return await client.post(url, content=content, cast_to=ChatCompletion, stream=True,
                                 stream_cls=AsyncStream[ChatCompletionChunk])
    return _completion(await client.post(url, content=content, cast_to=object))


def _completion(data):
    """The SDK's ChatCompletion for a response body, validated by pydantic's compiled validator (8 us)
    rather than built by the SDK's lenient constructor in Python (185 us, a tenth of a batch's
    turn). A body the validator refuses (a server's own dialect) is built leniently as before, and
    anything but a JSON object is passed on for ``_from_response`` to refuse."""
    if not isinstance(data, dict):
        return data
    try:
        return ChatCompletion.model_validate(data)
    except pydantic.ValidationError:
        return ChatCompletion.construct(**data)


def encoded(body: dict) -> bytes:
    """The request's JSON as the SDK writes it, with every lone surrogate (a reply cut
    mid-character, undecodable input) as U+FFFD: JSON on the wire is UTF-8, and one such
    character would fail the whole request."""
    try:
        return _dumps(body).encode("utf-8")
    except UnicodeEncodeError:
        return _dumps(_replace_surrogates(body)).encode("utf-8")


def _dumps(body: dict) -> str:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _replace_surrogates(value):
    if isinstance(value, str):
        return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in value)
    if isinstance(value, dict):
        return {k: _replace_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_surrogates(v) for v in value]
    return value


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
    return _with_usage(Completion(text=content, tool_calls=calls, raw=raw, sent=messages,
                                  tokens_in=usage.prompt_tokens if usage is not None else None,
                                  tokens_out=usage.completion_tokens if usage is not None else None,
                                  finish_reason=response.choices[0].finish_reason))


def _with_usage(result: Completion) -> Completion:
    """Token counts the server did not give (llama.cpp's streams carry none) estimated, and marked so."""
    if result.tokens_in is None or result.tokens_out is None:
        result.tokens_estimated = True
        if result.tokens_in is None:
            result.tokens_in = estimate_tokens(result.sent)
        if result.tokens_out is None:
            result.tokens_out = estimate_tokens(result.text) + sum(
                estimate_tokens(c.name + c.arguments) for c in result.tool_calls)
    return result


MAX_REPLY_CHARS = 64 * 1024   # a reply is a command or two; past this the rest is not read (nor recorded)


async def _from_stream(chunks, messages, stream) -> Completion:
    """The streamed answer put back together (the client bounds its time and bytes: ``bounded.py``)."""
    raw: dict = {"id": None, "object": "chat.completion", "created": int(time.time()), "model": None,
                 "system_fingerprint": None}
    text: list[str] = []
    size = 0
    calls: dict[int, dict] = {}
    finish = None
    usage = None
    async for chunk in chunks:
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
    if finish is None:   # [DONE] with no finish reason: llama-cpp-python cut it off for another request
        raise Transient(f"the stream ended without a finish reason after {size} characters (cut off by the server)")
    message: dict = {"role": "assistant", "content": "".join(text) or None}
    ordered = [calls[i] for i in sorted(calls)]
    for i, c in enumerate(ordered):
        c["id"] = c["id"] or f"call_{i}"
    if ordered:
        message["tool_calls"] = ordered
    raw["choices"] = [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}]
    raw["usage"] = usage
    return _with_usage(Completion(text="".join(text), tool_calls=[ToolCall(c["id"], c["function"]["name"],
                                                                           c["function"]["arguments"])
                                                                  for c in ordered],
                                  raw=raw, sent=messages, tokens_in=(usage or {}).get("prompt_tokens"),
                                  tokens_out=(usage or {}).get("completion_tokens"), finish_reason=finish))
