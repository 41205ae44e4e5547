"""What a backend hands back to the model player, and the two ways it fails.

Every backend, whatever its SDK, answers in this one shape, so the player
builds its reply and its records without knowing which API was asked.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str            # JSON text, as the model wrote it


@dataclass
class Completion:
    text: str
    tool_calls: list[ToolCall]
    raw: dict                 # the provider's whole response, as a dict (what clemcore records)
    sent: list                # the messages as sent (clemcore's manipulated_prompt_obj)
    tokens_in: int | None = None
    tokens_out: int | None = None
    extra: dict = field(default_factory=dict)
    finish_reason: str | None = None
    tokens_estimated: bool = False   # the server said nothing of usage: tokens_in/out are our estimate
    options: dict = field(default_factory=dict)   # how it was asked, when that differs by server:
    #                                               tool_choice, streamed, system message (records keep it)


class ModelError(RuntimeError):
    """A backend gave up (after its retries) or was refused: the episode ends as an error."""


class ContextFull(ModelError):
    """The conversation no longer fits the model's context: no retry can succeed, and the
    episode ends as its own outcome (``context_exhausted``), not as an error a rerun repeats."""


class ToolsIgnored(ModelError):
    """Tools were required and the answer holds no tool call: the server does not pass the tools to
    the model (a chat format without tool calling), so the run would be a text run in disguise."""


class Refused(ModelError):
    """The server refuses this form of request (a tool choice, streaming with tools, a system
    message): the caller may ask in another form."""


class Transient(RuntimeError):
    """The answer broke off or could not be read: worth asking again."""


def connection_refused(exc: BaseException | None) -> bool:
    """Whether nothing listened where the request went (a server not started, a wrong port). The SDKs'
    transports rename it (openai's aiohttp transport reports a connect *timeout*, which a user would wait
    out or raise the timeout for), but the socket's own refusal stays in the chain of causes."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, ConnectionRefusedError) or (isinstance(exc, OSError) and exc.errno == errno.ECONNREFUSED):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def refused_at(where: str) -> str:
    """A refused connection as the screen and error.json say it: where, and the likely cause."""
    return f"connection refused at {where}: is the server running?"


def is_transport_error(exc: BaseException) -> bool:
    """A connection that broke while a body was read (httpx's or httpx2's TransportError, by name:
    which of the two an SDK uses depends on its version)."""
    return any(c.__name__ in ("TransportError", "StreamError") and c.__module__.split(".")[0].startswith("httpx")
               for c in type(exc).__mro__)


# How servers say that a prompt is longer than the context (OpenAI, vLLM, llama.cpp, TGI,
# Anthropic, Ollama's OpenAI API); matched in lower case against the error's text.
CONTEXT_FULL_SIGNS = ("context_length_exceeded", "maximum context length", "context length", "context size",
                      "exceed_context_size", "context window", "prompt is too long", "too many tokens",
                      "input is too long", "exceeds the available context")


def says_context_full(status: int | None, text: str) -> bool:
    return status is not None and 400 <= status < 500 and any(s in text.lower() for s in CONTEXT_FULL_SIGNS)


def estimate_tokens(value) -> int:
    """About four characters a token: what we count when a server reports no usage (said so wherever shown)."""
    import json

    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return max(1, len(text) // 4) if text else 0
