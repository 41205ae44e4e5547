"""What an action's ``syntax`` patterns must be to bind its parameters, checked where a ruleset or a
world's actions are read (a mistake there once played on silently, or ended in a traceback)."""

from __future__ import annotations

from ..parsers.patterns import SLOT
from ..yamlpos import SourceError, pos_of


def syntax_mistake(text: str, params: dict) -> str | None:
    """Why a pattern cannot bind the action's parameters, if it cannot: a slot it lacks reaches the
    action's checks and effects as nothing (``strike`` for ``light {obj}`` said "It burns." and lit
    nothing), a slot that is no parameter binds a name no rule reads, and a slot named twice is no
    pattern at all."""
    slots = []
    for word in text.split():
        m = SLOT.fullmatch(word)
        if m:
            slots.append(m.group(1))
        elif "{" in word or "}" in word:
            return (f"syntax {text!r}: {word!r} is not a slot; a slot is a word of its own, such as {{obj}}"
                    " (put other words and punctuation around it with spaces)")
    declared = ", ".join(params) or "none"
    twice = sorted({s for s in slots if slots.count(s) > 1})
    if twice:
        return (f"syntax {text!r} names {{{twice[0]}}} twice; each of the action's parameters ({declared})"
                " is one slot of the pattern")
    unknown = [s for s in slots if s not in params]
    if unknown:
        return (f"syntax {text!r} names {{{unknown[0]}}}, which is not a parameter of the action"
                f" ({declared}); declare it under params, or use one of those")
    missing = [p for p in params if p not in slots]
    if missing:
        return (f"syntax {text!r} does not name the parameter {missing[0]!r}; every pattern names each of"
                f" the action's parameters ({declared}): write e.g. '{text} {{{missing[0]}}}', or make it"
                " an action of its own")
    return None


def checked_syntax(item, params: dict, path: str, errors: list[SourceError]) -> list[str]:
    """The action's patterns that can bind its parameters; each other one is an error at its place."""
    raw = item.get("syntax") or []
    listed = raw if isinstance(raw, list) else [raw] if isinstance(raw, str) else []
    if not isinstance(raw, (list, str)) or any(not isinstance(s, str) or not s.split() for s in listed):
        errors.append(SourceError(path, pos_of(item, "syntax"), "syntax is a list of patterns such as"
                                  " 'take {obj}', none of them empty"))
    kept = []
    for j, text in enumerate(listed):
        if not isinstance(text, str) or not text.split():
            continue
        said = syntax_mistake(text, params)
        if said is None:
            kept.append(text)
        else:
            where = pos_of(raw, j) if raw is listed else pos_of(item, "syntax")
            errors.append(SourceError(path, where, f"action {item['id']!r}: {said}"))
    return kept
