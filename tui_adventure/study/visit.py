"""How a participant came to a study in a browser: the ID their link carries, a platform's IDs, the browser.

A study link names the participant (``?participant=ID``) or, from Prolific,
carries its own IDs (``?PROLIFIC_PID=...&STUDY_ID=...&SESSION_ID=...``). The
participant never types an ID, so the link is the only source and is checked
as strictly as a typed one: an ID becomes a folder name. The server checks the
link (``from_link``) and hands the participant's process what it learnt as one
JSON line on its standard input (``hello``); the process, started ahead of its
visitor and waiting with everything loaded, checks it again (``await_hello``)
before any of it reaches the records, so nothing unbounded or unexpected is
written, and nothing of it ever passes through a shell.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence

from .queue import check_participant

MAX_HELLO = 8192               # bytes of the server's first line to a visitor's process
PLATFORM = ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")   # Prolific's URL parameters, kept in meta.study.platform
MAX_AGENT = 512                # characters of a user agent kept (real ones are 100 to 300)
MAX_SIZE = 100_000             # cells or pixels: anything larger is not a screen
SIZES = ("columns", "rows", "width_px", "height_px")


class VisitError(ValueError):
    """What is wrong with a study link, in words for the person who opened it."""


def from_link(query: Mapping[str, Sequence[str]]) -> tuple[str, dict]:
    """(participant ID, platform IDs) from a link's query (each name with every value it was given).

    ``participant`` or ``PROLIFIC_PID`` names the participant (both may be given if they agree); a name
    given twice, or an ID that is not 1 to 64 letters, digits, ``-`` and ``_``, is refused.
    """
    def one(name: str) -> str | None:
        values = list(query.get(name, ()))
        if len(values) > 1:
            raise VisitError(f"the link gives {name} {len(values)} times; give it once")
        if not values:
            return None
        try:
            return check_participant(values[0])
        except ValueError:
            raise VisitError(f"{name} in the link must be 1 to 64 letters, digits, '-' or '_'") from None

    named, pid = one("participant"), one("PROLIFIC_PID")
    if named and pid and named != pid:
        raise VisitError("the link's participant and PROLIFIC_PID differ; give one of them")
    participant = named or pid
    if participant is None:
        raise VisitError("this link names no participant: open the link the study gave you"
                         " (it ends in ?participant=ID, or carries Prolific's PROLIFIC_PID)")
    platform = {name: value for name in PLATFORM if (value := one(name)) is not None}
    return participant, platform


def browser(user_agent: str | None, **sizes: int | None) -> dict:
    """A browser's facts as the records keep them: the user agent (printable, at most ``MAX_AGENT``
    characters) and the window's size in cells and pixels (``SIZES``), each left out when unknown."""
    out: dict = {}
    if isinstance(user_agent, str) and user_agent:
        out["user_agent"] = "".join(c for c in user_agent if c.isprintable())[:MAX_AGENT]
    for name in SIZES:
        value = sizes.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_SIZE:
            out[name] = value
    return out


def hello(participant: str | None, platform: dict, facts: dict, columns: int, rows: int) -> bytes:
    """The line the server writes to a visitor's process, which waits for it (``await_hello``)."""
    return json.dumps({"participant": participant, "platform": platform, "browser": facts,
                       "columns": columns, "rows": rows}).encode() + b"\n"


def await_hello(fd: int = 0) -> tuple[str | None, dict, int, int]:
    """(participant, visit, columns, rows) from the server's line on ``fd``, read a byte at a time so that
    nothing after it (the terminal's input, which the app reads from the same descriptor) is taken."""
    line = bytearray()
    while not line.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            raise VisitError("the server closed the session before it began")
        line += byte
        if len(line) > MAX_HELLO:
            raise VisitError(f"the server's first line is over {MAX_HELLO} bytes")
    try:
        data = json.loads(line)
    except ValueError:
        raise VisitError("the server's first line is not JSON") from None
    if not isinstance(data, dict):
        raise VisitError("the server's first line is not a JSON object")
    participant = data.get("participant")
    if participant is not None:
        try:
            participant = check_participant(participant)
        except ValueError as exc:
            raise VisitError(str(exc)) from None
    size = browser(None, columns=data.get("columns"), rows=data.get("rows"))
    return participant, visit_of(data), size.get("columns", 80), size.get("rows", 24)


def visit_of(data: dict) -> dict:
    """``{"platform": {...}, "browser": {...}}`` from what the server sent, each part checked again."""
    platform, facts = data.get("platform") or {}, data.get("browser") or {}
    if not isinstance(platform, dict) or not isinstance(facts, dict):
        raise VisitError("the visit's platform and browser are mappings")
    unknown = set(platform) - set(PLATFORM)
    if unknown:
        raise VisitError(f"unknown platform ID {sorted(unknown)[0]!r}")
    try:
        platform = {name: check_participant(value) for name, value in platform.items()}
    except ValueError:
        raise VisitError("a platform ID must be 1 to 64 letters, digits, '-' or '_'") from None
    kept = browser(facts.get("user_agent"), **{name: facts.get(name) for name in SIZES})
    return {**({"platform": platform} if platform else {}), **({"browser": kept} if kept else {})}
