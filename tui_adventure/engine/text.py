"""Message templates and English lists.

A template such as ``"You take {the obj}. {inventory_text()}"`` is compiled
once into a list of parts; rendering is a join. Placeholders:
``{obj}`` the name, ``{Obj}`` capitalised, ``{the obj}`` / ``{The obj}``,
``{a obj}`` / ``{A obj}``, ``{type obj}`` / ``{Type obj}`` (the entity's type
name, as clembench words some messages), and ``{fn(arg, ...)}`` for a text
function the ruleset's style provides (room descriptions, contents).
"""

from __future__ import annotations

import re
from typing import Callable

_PLACE_RE = re.compile(r"\{([^{}]*)\}")
MAX_COMMAND = 4096   # characters: the longest command played, and so kept in records, saves and histories


class TemplateError(ValueError):
    pass


# C0 and C1 controls (but newline and tab), DEL, bidirectional overrides and isolates, lone surrogates
_UNSAFE_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _shown(m: re.Match) -> str:
    c = m.group()
    if c < " ":
        return "^" + chr(ord(c) + 64)         # ESC -> ^[ , as a terminal shows a typed control key
    if c == "\x7f":
        return "^?"
    return f"<U+{ord(c):04X}>"


def visible(text: str) -> str:
    """Text safe to print to a terminal: every control character but newline and tab shown, not obeyed.

    Typed lines, model replies and world texts reach the terminal through the
    REPL and ``script``; a raw ESC there could retitle the window, clear the
    screen or write the clipboard (OSC 52), and a lone surrogate would crash
    the encoder.
    """
    return _UNSAFE_RE.sub(_shown, text) if _UNSAFE_RE.search(text) else text


def english_list(items: list[str], conj: str = "and", oxford: bool = False) -> str:
    """``a, b and c`` (no Oxford comma unless asked: clembench writes none)."""
    if not items:
        return ""
    if len(items) == 1:
        return items[0]
    comma = "," if oxford and len(items) > 2 else ""
    return f"{', '.join(items[:-1])}{comma} {conj} {items[-1]}"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 goal``, ``2 goals``, ``0 goals``: every count a message says goes through here, so none
    reads "1 goals" (``many`` for a word that is not made plural by an s: ``plural(n, "entry", "entries")``)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


class Later:
    """A message rendered only when it is read, and then once.

    Most of a step's cost is its text (a room description lists everything in
    sight), yet a replay, a planner check or a batch run reads few of them. The
    text is a function of an immutable state and the action's arguments, so
    rendering it later gives the same bytes; a memo hit hands out the same
    object, so it is rendered at most once however often it is shared.
    """

    __slots__ = ("render", "st", "env", "text", "next", "fail")

    def __init__(self, render: Callable, st, env: dict, next=None, fail: str | None = None) -> None:
        """``render(st, env)`` makes the text. An action's step (``Action.attempt_later``) keeps its
        outcome in its message, the memo's one object a step: ``next``, the next state (None:
        unchanged), and ``fail``, the fail type (None: it succeeded)."""
        self.render: Callable | None = render
        self.env: dict | None = env
        self.st, self.text = st, None
        self.next, self.fail = next, fail

    def __str__(self) -> str:
        text = self.text
        if text is None:
            render = self.render
            assert render is not None   # dropped only once the text is made
            text = self.text = render(self.st, self.env)
            self.render = self.st = self.env = None   # what it was made from is no longer needed
        return text


_PLANS: dict = {}   # (template, its variables) -> its parts read: worlds of one ruleset share their messages


def compile_template(template: str, names: Callable[[str], str], types: Callable[[str], str],
                     functions: dict[str, Callable], known_vars: set[str], later: bool = False) -> Callable:
    """Returns ``render(state, env) -> str``; unknown placeholders fail at load, not in play.

    Reading a template is the same for every world of a ruleset, so it is done once (``_plan``); a
    world only binds the parts to its own names, types and text functions. ``later``: bound when
    first rendered, for a world whose ruleset bound it without error before in a world of its shape
    (a world drawn each episode renders a few of its actions' fifty-odd messages)."""
    key = (template, frozenset(known_vars))
    plan = _PLANS.get(key)
    if plan is None:
        plan = _plan(template, known_vars)
        if len(_PLANS) > 20_000:   # at most 20,000 templates
            _PLANS.clear()
        _PLANS[key] = plan
    if type(plan) is str:
        return lambda st, env: plan
    if later:
        bound = None

        def render(st, env) -> str:
            nonlocal bound
            if bound is None:
                bound = _joined([p if type(p) is str else _bind(p, template, names, types, functions) for p in plan])
            return bound(st, env)
        return render
    return _joined([p if type(p) is str else _bind(p, template, names, types, functions) for p in plan])


def _joined(parts: list) -> Callable:
    """``render(st, env)`` joining the parts (texts, and functions of the state and the arguments): a
    template of one or two placeholders, nearly every one, is one f-string (a message is rendered on
    each step an episode reads, and a generator joined cost more than most of its parts)."""
    texts, calls = [""], []
    for p in parts:
        if type(p) is str:
            texts[-1] += p
        else:
            calls.append(p)
            texts.append("")
    if len(calls) == 1:
        (f,), (a, b) = calls, texts
        if not a and not b:
            return f
        return lambda st, env: f"{a}{f(st, env)}{b}"
    if len(calls) == 2:
        (f, g), (a, b, c) = calls, texts
        return lambda st, env: f"{a}{f(st, env)}{b}{g(st, env)}{c}"

    def render(st, env) -> str:
        return "".join([p if type(p) is str else p(st, env) for p in parts])
    return render


def _plan(template: str, known_vars: set[str]):
    """The template's parts: text, and placeholders read into tuples (see ``_bind``); the whole text
    when it has no placeholder."""
    parts: list = []
    pos = 0
    for m in _PLACE_RE.finditer(template):
        if m.start() > pos:
            parts.append(template[pos:m.start()])
        parts.append(_read_placeholder(m.group(1).strip(), template, known_vars))
        pos = m.end()
    if pos < len(template):
        parts.append(template[pos:])
    if all(type(p) is str for p in parts):
        return "".join(parts)
    return tuple(parts)


def _read_placeholder(body: str, template: str, known_vars) -> tuple:
    """``("fn", name, args)`` for ``{fn(a, b)}``, else ``(form, var, capitalised)`` for ``{the obj}``."""
    fm = re.fullmatch(r"(\w+)\(\s*([\w\s,]*)\)", body)
    if fm:
        args = tuple(a.strip() for a in fm.group(2).split(",") if a.strip())
        for a in args:
            if a not in known_vars:
                raise TemplateError(f"{{{body}}} uses {a!r}, which is no parameter of this action")
        return ("fn", fm.group(1), args)
    words = body.split()
    if len(words) == 1:
        var, form = words[0], None
    elif len(words) == 2:
        form, var = words
    else:
        raise TemplateError(f"cannot read {{{body}}} in {template!r}")
    cap = var[:1].isupper() and var.lower() in known_vars
    if cap:
        var = var.lower()
    if var not in known_vars:
        raise TemplateError(f"{{{body}}} in {template!r} names {var!r}, which is no parameter of this action")
    if form is not None and form.lower() not in ("the", "a", "type"):
        raise TemplateError(f"unknown form {form!r} in {{{body}}} (use the, a, type, or a capital letter)")
    return (form, var, cap)


def _bind(part: tuple, template: str, names, types, functions):
    """A placeholder read by ``_read_placeholder``, made a function of (state, env) for one world."""
    if part[0] == "fn":
        _, fname, args = part
        fn = functions.get(fname)
        if fn is None:
            raise TemplateError(f"unknown text function {fname}() in {template!r}"
                                f" (known: {', '.join(sorted(functions)) or 'none'})")
        if not args:
            return lambda st, env: fn(st)
        return lambda st, env: fn(st, *[env.get(a) for a in args])
    form, var, cap = part

    def name_of(env):
        value = env.get(var)
        return names(value) if value is not None else ""

    if form is None:
        if cap:
            return lambda st, env: capitalise(name_of(env))

        def plain(st, env):   # a plain name, as name_of gives it
            value = env.get(var)
            return names(value) if value is not None else ""
        return plain
    low = form.lower()
    up = form[:1].isupper()
    # a name that starts with a capital is a person's (a player's): no article, "you give it to Bo"
    if low == "the":
        word = "The" if up else "the"

        def definite(st, env):
            value = env.get(var)
            name = names(value) if value is not None else ""
            return name if name[:1].isupper() else f"{word} {name}"
        return definite
    if low == "a":
        def article(st, env):
            name = name_of(env)
            if name[:1].isupper():
                return name
            a = "an" if name[:1] in "aeiou" else "a"
            return f"{a.capitalize() if up else a} {name}"
        return article
    if up:   # "type": the entity's type name
        return lambda st, env: capitalise(types(env.get(var)))
    return lambda st, env: types(env.get(var))
