"""A model's answer read back from the records: the ``Reply`` the player returned, as far as a
requests file keeps it, so a recorded turn is drawn exactly like a live one (``keyboard/model_turns.py``).

The request record holds the provider's whole response (``raw_response_obj``):
OpenAI's chat completion (``choices``, ``usage``) or Anthropic's message
(``content`` blocks, ``usage``, ``stop_reason``), as the backends in
``backends/`` wrote them, and clemcore's ``clem_player`` part with the reply
judged and the call's duration. A person's or a program's turn has no
provider response: it reads back as no model answer (None).
"""

from __future__ import annotations

import json
import re

from .backends.completion import estimate_tokens
from .reply import Reply

_DURATION = re.compile(r"(?:(\d+) days?, )?(\d+):(\d\d):(\d\d(?:\.\d+)?)")


def recorded_reply(call) -> Reply | None:
    """The model's Reply for one recorded call (``calls[i]["call"]`` of a requests file), or None."""
    if not isinstance(call, dict):
        return None
    raw = _dict(call.get("raw_response_obj"))
    player = _dict(raw.get("clem_player"))
    text = str(player.get("response", ""))
    if isinstance(raw.get("choices"), list):
        said, calls, finish, usage = _openai(raw)
        tokens = (usage.get("prompt_tokens"), usage.get("completion_tokens"))
    elif isinstance(raw.get("content"), list):
        said, calls, finish, usage = _anthropic(raw)
        tokens = (usage.get("input_tokens"), usage.get("output_tokens"))
    else:
        return None
    tokens_in, tokens_out = (t if isinstance(t, int) else None for t in tokens)
    estimated = tokens_in is None or tokens_out is None
    if tokens_in is None:
        tokens_in = estimate_tokens(call.get("manipulated_prompt_obj"))
    if tokens_out is None:
        tokens_out = estimate_tokens(said) + sum(estimate_tokens(name + args) for name, args in calls)
    return Reply(text, call=call, tokens_in=tokens_in, tokens_out=tokens_out,
                 latency=duration(player.get("call_duration")), tokens_estimated=estimated,
                 finish_reason=str(finish) if finish else None, tool_calls=tuple(calls), raw=said)


def duration(text) -> float | None:
    """Seconds from clemcore's ``call_duration`` (a timedelta's str: ``0:00:01.234567``)."""
    match = _DURATION.fullmatch(str(text or "").strip())
    if match is None:
        return 0.0   # a model call with no duration kept: still a model's turn
    days, hours, minutes, seconds = match.groups()
    return int(days or 0) * 86400 + int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def _openai(raw: dict):
    choice = raw["choices"][0] if raw["choices"] and isinstance(raw["choices"][0], dict) else {}
    message = _dict(choice.get("message"))
    calls = []
    for c in message.get("tool_calls") or []:
        function = c.get("function") if isinstance(c, dict) else None
        if isinstance(function, dict):
            calls.append((str(function.get("name", "?")), _text(function.get("arguments", ""))))
    usage = _dict(raw.get("usage"))
    return str(message.get("content") or ""), calls, choice.get("finish_reason"), usage


def _anthropic(raw: dict):
    blocks = [b for b in raw["content"] if isinstance(b, dict)]
    said = "".join(str(b.get("text", "")) for b in blocks if b.get("type") == "text")
    calls = [(str(b.get("name", "?")), _text(b.get("input", {}))) for b in blocks if b.get("type") == "tool_use"]
    usage = _dict(raw.get("usage"))
    return said, calls, raw.get("stop_reason"), usage


def _dict(value) -> dict:
    """``value`` if it is a dict, else an empty one (a record's part may be missing or malformed)."""
    return value if isinstance(value, dict) else {}


def _text(arguments) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
