"""A ``syntax`` pattern ("put {a} in|on {b}") compiled once: its regex, its slots and the cheap cuts
the parser tries before the regex. The shape of a syntax is the same in every world, so it is kept."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_SHAPES = 10_000  # pattern texts remembered (a ruleset has a hundred or so)
SLOT = re.compile(r"\{(\w+)\}")   # a slot, a word of its own: "{obj}" (rules/action_syntax.py checks them at load)


@dataclass(slots=True)
class Pattern:
    action: int                   # its action's index in the world's actions (shared by every world: ``Layout``)
    regex: re.Pattern
    slots: tuple[str, ...]
    literals: int
    text: str
    kinds: tuple[str, ...]        # each slot's kind (thing, dir, room, word), read once at load
    needs: frozenset              # the words of its second literal (one must be in a line it matches)
    words: tuple                  # the words of its literals, for the parser's vocabulary
    size: int                     # the fewest words a line it matches has: a word a part
    parts: tuple                  # (slot, kind, its group's index) for each slot
    sep: str | None               # how ``_parse`` cuts a line without the regex: see ``_cut``



_SHAPES: dict[str, tuple] = {}   # syntax -> what ``_shape`` makes of it: the same in every world


def compile_pattern(action: int, syntax: str, params: dict) -> Pattern:
    """``action``: its index in the world's actions; ``params``: its slots' kinds."""
    shape = _SHAPES.get(syntax)
    if shape is None:
        shape = _shape(syntax)
        if len(_SHAPES) >= MAX_SHAPES:
            _SHAPES.clear()
        _SHAPES[syntax] = shape
    regex, slots, literals, needs, words, cut = shape
    kinds = tuple(params.get(s, "thing") for s in slots)
    return Pattern(action, regex, slots, literals, syntax, kinds, needs, words, literals + len(slots),
                    tuple(zip(slots, kinds, range(len(slots)))), cut)


class Layout:
    """Which patterns a line's first word tries, for one list of action definitions: the same for
    every world of a ruleset (a generated world per reset reads none of it again). A pattern holds
    its action by index (``Pattern.action``), so the patterns themselves are shared."""

    __slots__ = ("by_first", "slot_first", "tried", "verbs", "words", "specs", "own", "lone", "lone_kinds", "once")

    ONCE = 256   # tables of commands of one word kept (see ``once``)

    def __init__(self, specs: tuple) -> None:
        self.specs = specs
        # (one words, what the style reads of a world) -> word -> (action index, env): the parser's
        # commands of one word, read once for every world of the layout that reads them alike (at most ONCE)
        self.once: dict = {}
        by_first: dict[str, list[Pattern]] = {}
        slot_first: list[Pattern] = []
        for i, spec in enumerate(specs):
            for syn in spec.syntax:
                pat = compile_pattern(i, syn, spec.params)
                first = syn.split()[0]
                if first.startswith("{"):
                    slot_first.append(pat)
                else:
                    for alt in first.split("|"):
                        by_first.setdefault(alt, []).append(pat)
        for pats in by_first.values():
            pats.sort(key=lambda p: -p.literals)
        self.by_first = by_first
        self.slot_first = slot_first
        # the patterns a first word is tried against, in order: its own, then those starting with a slot
        self.tried = {w: pats + slot_first for w, pats in by_first.items()}
        self.verbs = frozenset(by_first)
        self.words = frozenset(w for pats in by_first.values() for p in pats for w in p.words)
        # for the parser's commands of one word (``CommandParser._read_once``): a word's own pattern
        # of that word alone, first of its own, and the patterns of a lone slot, in order
        self.own: dict[str, Pattern] = {}
        for w, pats in by_first.items():
            mine = [p for p in pats if p.literals == 1 and not p.slots]
            if mine:
                self.own[w] = mine[0]
        self.lone = tuple(p for p in slot_first if len(p.slots) == 1 and not p.literals)
        # the kinds a word of its own is read as, by them, before the first thing's (which depends on the
        # state): what a parser's table of one-word commands depends on besides the words
        kinds: list[str] = []
        for p in self.lone:
            if p.kinds[0] == "thing":
                break
            if p.kinds[0] != "word" and p.kinds[0] not in kinds:
                kinds.append(p.kinds[0])
        self.lone_kinds = tuple(kinds)


def layout_of(actions: list, tables) -> Layout:
    """The actions' patterns laid out, once per list of specs in the ruleset's ``tables``
    (``RuleTables.layouts``)."""
    specs = tuple(a.spec for a in actions)
    hit = tables.layouts.get(specs)
    if hit is None:
        hit = tables.layouts.setdefault(specs, Layout(specs))
    return hit


def _cut(syntax: str) -> str | None:
    """None for "verb {a}", " word " for "verb {a} word {b}", else "" (the regex reads the line).

    A line is words joined by single spaces, and a pattern is tried on a line
    whose first word is one of its verb's: "{a}" is then the rest past that
    word; in "verb {a} word {b}" the lazy "{a}" ends where " word " is first
    found past the verb, "{b}" is the rest: the same split as the regex's.
    """
    said = syntax.split()
    slot = [bool(SLOT.fullmatch(w)) for w in said]
    if slot == [False, True]:
        return None
    if slot == [False, True, False, True] and "|" not in said[2]:
        return f" {said[2]} "
    return ""


def _shape(syntax: str) -> tuple:
    parts: list[str] = []
    slots: list[str] = []
    literals = 0
    needs: frozenset[str] = frozenset()
    said = syntax.split()
    last = max((i for i, word in enumerate(said) if SLOT.fullmatch(word)), default=-1)
    for i, word in enumerate(said):
        m = SLOT.fullmatch(word)
        if m:
            slots.append(m.group(1))
            # Every slot takes as little as the rest allows; the last one's extent is fixed by what
            # came before and the literals after it, so it may as well be greedy: the engine then
            # counts to the end rather than trying for the end at every character.
            parts.append(f"(?P<{m.group(1)}>.+)" if i == last else f"(?P<{m.group(1)}>.+?)")
        else:
            literals += 1
            if literals == 2:
                needs = frozenset(word.split("|"))
            alts = "|".join(re.escape(a) for a in word.split("|"))
            parts.append(f"(?:{alts})")
    regex = re.compile("^" + " ".join(parts) + "$")
    words = tuple(w for w in re.findall(r"[a-z']+", syntax) if w not in slots)
    return regex, tuple(slots), literals, needs, words, _cut(syntax)
