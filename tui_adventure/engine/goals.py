"""Goals written as facts or as English sentences ("the book is on the shelf")."""

from __future__ import annotations

import re

from .facts import parse_fact
from .world import Goal
from .yamlpos import did_you_mean


_SENTENCES = [
    (re.compile(r"^(?:the )?(.+?) (?:is|are) (in|inside|on|on top of) (?:the )?(.+?)\.?$"), None),
    (re.compile(r"^you (?:have|hold|are holding|are carrying|carry) (?:the )?(.+?)\.?$"), "held"),
    (re.compile(r"^you are in (?:the )?(.+?)\.?$"), "player_at"),
    (re.compile(r"^(?:the )?(.+?) (?:is|are) (open|closed|locked|unlocked|eaten)\.?$"), "state"),
    # "the candle is lit": a one-place predicate a world's own action changes
    (re.compile(r"^(?:the )?(.+?) (?:is|are) ([a-z][a-z_ ]*?)\.?$"), "other"),
]
GOAL_PREDICATES = {"at", "in", "on", "held", "open", "locked", "eaten"}


def goal_from_text(text: str, entities: dict, changeable=GOAL_PREDICATES) -> Goal:
    """A goal fact from ``pred(a,b)``, ``not pred(a)`` or an English sentence; ``changeable`` are the
    predicates the world's rules can change (a goal on any other could never be reached or lost)."""
    text = text.strip()
    negative = text.startswith("not ")
    body = text[4:].strip() if negative else text
    if re.match(r"^[A-Za-z_]\w*\s*\(", body):
        try:
            fact = parse_fact(body)
        except ValueError:
            raise ValueError(f"cannot read goal {text!r} (a fact is pred(arg, ...) with ids, e.g. on(book, table))") from None
        if fact[0] not in changeable and fact[0] not in {"room", "exit"}:
            raise ValueError(f"goal predicate {fact[0]!r} is not one the rules change"
                             f"{did_you_mean(fact[0], changeable, cutoff=0.5)}"
                             f" (use {', '.join(sorted(changeable))}, or add an action whose effects change it)")
        return Goal(fact, not negative)
    low = text.lower()
    for regex, kind in _SENTENCES:
        m = regex.match(low)
        if not m:
            continue
        if kind is None:
            x, rel, y = m.group(1), m.group(2), m.group(3)
            xid, yid = _named(x, entities, text), _named(y, entities, text)
            if entities[yid].kind == "room":
                return Goal(("at", xid, yid))
            return Goal(("in" if rel.startswith("in") else "on", xid, yid))
        if kind == "held":
            return Goal(("held", _named(m.group(1), entities, text)))
        if kind == "player_at":
            return Goal(("at", "player", _named(m.group(1), entities, text)))
        x, state = _named(m.group(1), entities, text), m.group(2)
        if kind == "other":
            state = state.replace(" ", "_")
            if state not in changeable:
                continue
            return Goal((state, x))
        if state in ("closed", "unlocked"):
            return Goal(("open" if state == "closed" else "locked", x), False)
        return Goal((state, x))
    raise ValueError(f"cannot read goal {text!r} (write a fact like on(book, table) "
                     "or a sentence like 'the book is on the table')")


def _named(phrase: str, entities: dict, text: str) -> str:
    phrase = phrase.strip()
    if phrase in entities:
        return phrase
    hits = [e.id for e in entities.values() if e.name == phrase or e.id.replace("_", " ") == phrase]
    if not hits:
        words = set(phrase.split())
        hits = [e.id for e in entities.values() if e.kind != "player" and words <= e.words() | {e.name}]
    if len(hits) == 1:
        return hits[0]
    if not hits:
        raise ValueError(f"goal {text!r}: nothing is called {phrase!r}"
                         f"{did_you_mean(phrase, [e.name for e in entities.values() if not e.hidden])}"
                         " (use a room's or an object's name or id)")
    raise ValueError(f"goal {text!r}: {phrase!r} could be {', '.join(hits)} (use the id)")
