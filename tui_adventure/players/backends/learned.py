"""What each server turned out to accept, learned from its refusals and kept for the process.

Servers that speak the same API differ in what they take: llama.cpp's
server fails ``tool_choice: "required"`` with a 500 and will not stream
tool calls; some chat templates refuse a system message. Asking in the
standard form first and stepping down on a refusal works everywhere, but
asking wrongly first on every turn would double each turn's latency, so
the first form that works is remembered per server and model and asked
first from then on. Records say which form each call used.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ServerFacts:
    tool_choice: object = None     # the tool choice that worked (None: not learned yet)
    stream_tools: bool = True      # False once a server refused to stream a request with tools
    system: bool | None = None     # whether it takes a system message (None: not asked yet)


_FACTS: dict[tuple, ServerFacts] = {}


def facts_for(spec) -> ServerFacts:
    key = (spec.backend, spec.base_url or "", spec.model_id)
    facts = _FACTS.get(key)
    if facts is None:
        facts = _FACTS[key] = ServerFacts()
    return facts


def forget() -> None:
    """Forget every server (tests start each from scratch)."""
    _FACTS.clear()
