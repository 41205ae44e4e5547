"""What a backend hands back to the model player, and the two ways it fails.

Every backend, whatever its SDK, answers in this one shape, so the player
builds its reply and its records without knowing which API was asked.
"""

from __future__ import annotations

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


class ModelError(RuntimeError):
    """A backend gave up (after its retries) or was refused: the episode ends as an error."""


class Transient(RuntimeError):
    """The answer broke off or could not be read: worth asking again."""


def is_transport_error(exc: BaseException) -> bool:
    """A connection that broke while a body was read (httpx's or httpx2's TransportError, by name:
    which of the two an SDK uses depends on its version)."""
    return any(c.__name__ in ("TransportError", "StreamError") and c.__module__.split(".")[0].startswith("httpx")
               for c in type(exc).__mro__)
