"""What each server turned out to accept, learned from its refusals and kept between runs.

Servers that speak the same API differ in what they take: llama.cpp's
server fails ``tool_choice: "required"`` with a 500 and will not stream
tool calls; some chat templates refuse a system message, others drop it
without a word. Asking in the standard form first and stepping down on a
refusal works everywhere, but asking wrongly first on every turn would
double each turn's latency, so the first form that works is remembered per
server and model and asked first from then on. Records say which form each
call used.

What was learned is also kept in the user's cache folder
(``$XDG_CACHE_HOME/tui-adventure/learned.json``), keyed by backend, server
URL and model, for ``CACHE_DAYS``: otherwise every ``adventure run`` pays
one refusal (a 500, a re-asked first turn) per server. A server restarted
with another chat format answers otherwise, so what is kept expires, and a
run that uses it says so (``note``); deleting the file (or ``adventure
models probe``, which asks afresh) forgets it.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TypeGuard

CACHE_DAYS = 7
KEPT = ("tool_choice", "stream_tools", "system")   # the facts the cache file holds
MAX_ID = 256                   # characters of a model id kept (real ones are a few dozen)
CACHE_LIMIT = 1024 * 1024      # bytes: a cache file larger than this is not read (and is written afresh)


def keepable(model) -> TypeGuard[str]:
    """Whether a model id may be kept, shown and asked for: text of at most ``MAX_ID`` printable
    characters. A server's id is a stranger's text, headed for a terminal and a cache every run reads."""
    return isinstance(model, str) and 0 < len(model) <= MAX_ID and model.isprintable()


@dataclass
class ServerFacts:
    tool_choice: object = None     # the tool choice that worked (None: not learned yet)
    stream_tools: bool = True      # False once a server refused to stream a request with tools
    system: bool | None = None     # whether it takes a system message (None: not asked yet)
    learned: str | None = None     # the date these came from the cache file (None: learned by this process)
    unchecked: bool = False        # a system message was sent, but no answer yet gave a usage to check it by
    key: tuple = field(default=(), repr=False)

    def remember(self) -> None:
        """Keep these facts in the cache file (called when one of them was learned)."""
        self.learned = None
        _save(self)

    def said(self) -> str:
        """The learned forms in words (for notes and the probe)."""
        parts = []
        if self.tool_choice is not None:
            choice = self.tool_choice
            parts.append(f"tool_choice {choice['function']['name'] if isinstance(choice, dict) else choice}")
        if not self.stream_tools:
            parts.append("tool calls unstreamed")
        if self.system is False:
            parts.append("the prompt in the first user message")
        elif self.system:
            parts.append("system message kept")
        return ", ".join(parts) or "nothing yet"


_FACTS: dict[tuple, ServerFacts] = {}


def facts_for(spec) -> ServerFacts:
    key = _key(spec.backend, spec.base_url, spec.model_id)
    facts = _FACTS.get(key)
    if facts is None:
        facts = _FACTS[key] = _load(key) or ServerFacts(key=key)
    return facts


def note(spec) -> str | None:
    """What a run says when it asks as the cache file says (None: nothing kept for this server)."""
    facts = facts_for(spec)
    if not facts.learned:
        return None
    return (f"note: {spec.base_url or spec.backend} ({spec.model_id}): asking as learned on {facts.learned}"
            f" ({facts.said()}); delete {cache_path()} to learn again")


def remember_server(backend: str, url: str, model: str, facts: dict) -> None:
    """Keep ``facts`` (``KEPT`` names) of a server found otherwise than by playing (the probe)."""
    key = _key(backend, url, model)
    known = _FACTS[key] = ServerFacts(key=key)
    for name, value in facts.items():
        setattr(known, name, value)
    known.remember()


def forget_server(backend: str, url: str, model: str) -> None:
    key = _key(backend, url, model)
    _FACTS.pop(key, None)
    _write({k: v for k, v in _read().items() if k != _name(key)})


def _key(backend: str, url: str | None, model: str) -> tuple:
    return (backend, (url or "").rstrip("/"), model)


def forget() -> None:
    """Forget every server this process knows (tests start each from scratch; the file stays)."""
    _FACTS.clear()


def cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tui-adventure" / "learned.json"


def _name(key: tuple) -> str:
    return " ".join(str(k) for k in key)


def _read() -> dict:
    try:
        with open(cache_path(), "rb") as fh:
            text = fh.read(CACHE_LIMIT + 1)
        if len(text) > CACHE_LIMIT:
            return {}
        data = json.loads(text)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _fresh(entry) -> TypeGuard[dict]:
    """Whether ``entry`` is a cache entry (a dict) learned recently enough to trust."""
    return (isinstance(entry, dict) and isinstance(entry.get("at"), (int, float))
            and time.time() - entry["at"] <= CACHE_DAYS * 86400)


def _load(key: tuple) -> ServerFacts | None:
    entry = _read().get(_name(key))
    if not _fresh(entry):
        return None
    facts = ServerFacts(key=key, learned=time.strftime("%Y-%m-%d %H:%M", time.localtime(entry["at"])))
    for name in KEPT:
        if name in entry:
            setattr(facts, name, entry[name])
    return facts


def _save(facts: ServerFacts) -> None:
    """Best effort: a cache that cannot be written (a read-only home) costs only a refusal next run.
    A model id that is not ``keepable`` is never written."""
    if not keepable(facts.key[2]) or len(facts.key[1]) > 4 * MAX_ID:
        return
    data = {k: v for k, v in _read().items() if _fresh(v)}
    data[_name(facts.key)] = {**{k: v for k, v in asdict(facts).items() if k in KEPT}, "at": time.time()}
    _write(data)


def _write(data: dict) -> None:
    from ...engine.snapshot import write_atomic

    path = cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(data, indent=1).encode("utf-8"), durable=False)
    except OSError:
        pass
