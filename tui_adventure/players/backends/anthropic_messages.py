"""Anthropic's messages API through the ``anthropic`` SDK (the ``[anthropic]`` extra; the table
imports this module only once it has found the SDK).

Messages arrive in the chat-completions shape the player builds; here they
become Anthropic's: a system text apart, content as text blocks (as clemcore
sends them), tool calls as ``tool_use`` blocks and their results as
``tool_result`` blocks in the next user message. Retries and timeouts are
the SDK's, as for OpenAI; a stream that breaks off is ``Transient``.
"""

from __future__ import annotations

import json

import anthropic

from ...engine.sources import parse_json
from .bounded import TooLarge, bound_broken, bounded, out_of_bounds
from .clients import shared_client
from .completion import (
    Completion, ContextFull, ModelError, ToolCall, Transient, connection_refused, is_transport_error, refused_at,
    says_context_full,
)


def _client(spec):
    def make():
        # the timeout a deadline for each whole request, the answer's size capped (bounded.py)
        http = bounded(anthropic.DefaultAsyncHttpxClient)(timeout=spec.timeout)
        return anthropic.AsyncAnthropic(api_key=spec.api_key, base_url=spec.base_url, timeout=spec.timeout,
                                        max_retries=spec.max_retries, http_client=http)
    return shared_client(("anthropic",) + spec.client_key(), make)


def encode(messages: list[dict]) -> tuple[str, list[dict]]:
    """(system text, Anthropic messages) from chat-completions messages."""
    system = []
    out: list[dict] = []

    def add(role: str, blocks: list[dict]) -> None:
        if out and out[-1]["role"] == role:   # Anthropic wants strictly alternating turns
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for m in messages:
        role = m["role"]
        if role == "system":
            system.append(m["content"])
        elif role == "tool":
            add("user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}])
        elif role == "assistant" and m.get("tool_calls"):
            blocks = [{"type": "text", "text": m["content"]}] if m.get("content") else []
            for c in m["tool_calls"]:
                try:
                    args = parse_json(c["function"]["arguments"] or "{}")
                except ValueError:
                    args = {}
                blocks.append({"type": "tool_use", "id": c["id"], "name": c["function"]["name"],
                               "input": args if isinstance(args, dict) else {}})
            add("assistant", blocks)
        else:
            add(role, [{"type": "text", "text": m["content"]}])
    return "\n\n".join(system), out


def request_args(spec, messages: list[dict], tools: list[dict], tool_choice) -> dict:
    system, sent = encode(messages)
    kwargs: dict = {"model": spec.model_id, "messages": sent, "max_tokens": spec.gen_args.get("max_tokens") or 300}
    temperature = spec.gen_args.get("temperature", 0.0)   # None (a registry entry's null): not sent
    if system:
        kwargs["system"] = system
    config = spec.config or {}
    if config.get("thinking_mode"):   # as clemcore: a 4000-token thinking budget on top, temperature 1
        temperature = 1.0
        kwargs.update(max_tokens=4000 + kwargs["max_tokens"], thinking={"type": "enabled", "budget_tokens": 4000})
    extra = dict(config.get("extra_body") or {})
    if temperature is not None:
        # SDK 1.x dropped temperature from its signature; the API still takes it in the body
        extra["temperature"] = temperature
    if extra:
        kwargs["extra_body"] = extra
    if tools:
        kwargs["tools"] = [{"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}
                           for t in tools]
        if not config.get("thinking_mode"):   # forced tool use is not allowed while thinking
            kwargs["tool_choice"] = {"type": "any"} if tool_choice == "required" else {"type": "auto"}
    return kwargs


async def complete(spec, messages: list[dict], tools: list[dict] | None = None, tool_choice="required",
                   stream=None) -> Completion:
    client = _client(spec)
    kwargs = request_args(spec, messages, tools or [], tool_choice)
    started = False   # past the status line: from here on a failure is one the SDK did not retry
    try:
        if stream is None or (spec.config or {}).get("stream") is False:
            message = await client.messages.create(**kwargs)
        else:
            async with client.messages.stream(**kwargs) as events:
                started = True
                async for text in events.text_stream:
                    stream(text)
                message = await events.get_final_message()
    except (anthropic.APIStatusError, anthropic.APIConnectionError) as exc:
        if isinstance(broken := bound_broken(exc), TooLarge):   # handed on as the SDK's own error
            raise out_of_bounds(spec, broken, spec.base_url or "the anthropic API") from exc
        status = getattr(exc, "status_code", None)   # a connection error has none
        if says_context_full(status, str(exc)):
            raise ContextFull(f"the conversation no longer fits the model's context ({exc})") from exc
        if not started:
            where = spec.base_url or "the anthropic API"
            if connection_refused(exc):
                raise ModelError(refused_at(where)) from exc
            raise ModelError(f"{where}: {type(exc).__name__}: {exc}") from exc   # the SDK has retried already
        raise Transient(f"{type(exc).__name__} while streaming: {exc}") from exc
    except (ValueError, AssertionError, anthropic.APIError) as exc:
        raise Transient(f"unreadable response: {type(exc).__name__}: {exc}") from exc
    except Exception as exc:
        if (broken := bound_broken(exc)) is not None:   # a stream over its deadline or its size cap
            raise out_of_bounds(spec, broken, spec.base_url or "the anthropic API") from exc
        if is_transport_error(exc):
            raise Transient(f"connection lost while streaming: {exc}") from exc
        raise
    blocks = getattr(message, "content", None)
    if not isinstance(blocks, list):
        raise Transient(f"a response without content: {str(message)[:200]}")
    text = "".join(b.text for b in blocks if getattr(b, "type", None) == "text")
    calls = [ToolCall(b.id, b.name, json.dumps(b.input)) for b in blocks if getattr(b, "type", None) == "tool_use"]
    usage = message.usage
    # what was asked, so the player can tell a text answer the model chose from tools ignored
    options = {"tool_choice": "required" if kwargs.get("tool_choice") == {"type": "any"} else "auto"} if tools else {}
    return Completion(text=text, tool_calls=calls, raw=message.model_dump(mode="json"), sent=kwargs["messages"],
                      tokens_in=usage.input_tokens if usage else None, tokens_out=usage.output_tokens if usage else None,
                      finish_reason=message.stop_reason, options=options)
