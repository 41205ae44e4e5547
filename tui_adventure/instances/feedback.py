"""Upstream's feedback quirks: the ``arg`` of a failed command and lark's error messages.

clembench's game master logs, for every failed command, an ``arg`` whose
shape depends on where upstream's interpreter noticed the failure (the
parser, a type check, a precondition), and words parse errors as lark does.
Scores are computed from these records, so they are rebuilt here exactly.
"""

from __future__ import annotations

import re

from ..engine.parsers import ParsedAction, ParseFailure
from ..engine.game import StepResult

PLAYER = "player1"        # upstream's ids of the player and of the inventory
INVENTORY = "inventory"


def itemcount(st) -> tuple:
    """Upstream's ``itemcount`` fact of the inventory-limit domain: how many things are held."""
    return ("itemcount", INVENTORY, len(st.by2.get(("in", INVENTORY), ())))


# -- action_fail "arg" ------------------------------------------------------------------
def fail_arg(world, state, result: StepResult):
    """Upstream's ``arg`` of a failed command, evaluated on the state it failed in."""
    if not world.is_clembench():
        return result.command
    assert result.fail is not None   # the interpreter asks for the arg of a failed command only
    kind = result.fail["type"]
    if result.action is None:
        return _parse_arg(world, state, result.command, kind)
    if kind in ("domain_trait_type_mismatch", "domain_type_discrepancy"):
        arg = _type_arg(world, state, result.action, result.args)
        if arg is not None:
            return arg
    return {"failed_action_type": result.action,
            "failed_precon_predicate": _failed_precondition(world, state, result.action, result.args)}


def _cleaned(command: str) -> str:
    text = command
    if text.endswith(".") or text.endswith("!"):
        text = text[:-1]
    return text.lower()


def _parse_arg(world, state, command: str, kind: str):
    """The arg of a command that did not parse (``kind``: its failure's type)."""
    style = world.style
    text = _cleaned(command)
    # only clembench worlds get here (fail_arg), and their parser is upstream's grammar (ClemCommandParser)
    room = style.player_room(state)
    held = {style.type_of.get(x) for x in state.by2.get(("in", INVENTORY), ())}
    got = world.parser.parser.parse(command, style.type_of.get(room, ""), held)
    if kind == "lark_exception":
        return lark_message(world, text)
    if isinstance(got, ParseFailure) and got.fail_type == kind:
        return got.arg
    if kind == "undefined_action":
        return text
    if isinstance(got, ParsedAction):
        if kind == "malformed_command":
            return str({"type": "unknown", "arg1": got.verb})
        room = style.player_room(state)
        return {"failed_action_type": got.verb,
                "failed_precon_predicate": {"predicate_tuple": ["at", got.arg1_type, room],
                                            "fulfilled": False, "precon_idx": 1}}
    return text


# parameters of upstream's actions in order, with the type each must have
_PARAMS = {"open": [("e", "openable")], "close": [("e", "openable")],
           "take": [("e", "takeable"), ("s", "receptacle")], "put": [("e", "movable"), ("t", "receptacle")],
           "go": [("d", "room")], "examine": [("e", "entity")]}


def _has_type(world, st, x: str, t: str) -> bool:
    facts = st.facts
    if t == "room":
        return x in world.style.rooms
    if t == "entity":
        return x not in world.style.rooms
    if t == "receptacle":
        return x == INVENTORY or ("support", x) in facts or ("container", x) in facts
    return (t, x) in facts


def _type_arg(world, st, action: str, args: dict) -> dict | None:
    for param, t in _PARAMS.get(action, ()):
        x = args.get(param)
        if x and not _has_type(world, st, x, t):
            return {"failed_action_type": action, "failed_parameter": world.style.type_of.get(x, x)}
    return None


def _preconditions(action: str, counted: bool) -> list:
    """Upstream's precondition of each action: ("and"|"or", [...]), ("not", atom), ("less", fact, n), atom."""
    if action in ("open", "close"):
        return [("at", "p", "r"), ("at", "e", "r"), ("closed" if action == "open" else "open", "e")]
    if action == "take" and counted:
        return [("at", "p", "r"), ("at", "e", "r"), ("not", ("in", "e", "inventory")), ("at", "s", "r"),
                ("accessible", "e"), ("less", ("itemcount", "i"), 2),
                ("or", [("and", [("on", "e", "s"), ("support", "s")]),
                        ("and", [("open", "s"), ("container", "s"), ("in", "e", "s")])])]
    if action == "take":
        return [("at", "p", "r"), ("at", "e", "r"), ("or", [("in", "e", "inventory"), ("at", "s", "r")]),
                ("accessible", "e"),
                ("or", [("and", [("on", "e", "s"), ("support", "s")]),
                        ("and", [("open", "s"), ("container", "s"), ("in", "e", "s")])])]
    if action == "put":
        return [("at", "p", "r"), ("at", "e", "r"), ("at", "t", "r"),
                ("or", [("and", [("container", "t"), ("open", "t")]), ("support", "t")])]
    if action == "go":
        return [("at", "p", "c"), ("not", ("at", "p", "d")), ("exit", "c", "d")]
    if action == "examine":
        return [("at", "p", "r"), ("or", [("at", "e", "r"), ("type", "e", "inventory")]), ("accessible", "e")]
    return [("at", "p", "r")]


def _trace(node, atom) -> dict:
    """A precondition's tree with each atom's outcome (``atom(node)``). Not a closure calling itself: that
    is a reference cycle, and it held the state, so each failed command's state waited for the collector."""
    if node[0] in ("and", "or"):
        items = [_trace(n, atom) for n in node[1]]
        held = [i["fulfilled"] for i in items]
        return {node[0]: items, "fulfilled": all(held) if node[0] == "and" else any(held)}
    if node[0] == "not":
        inner = _trace(node[1], atom)
        return {"not": inner, "fulfilled": not inner["fulfilled"]}
    return atom(node)


def _failed_precondition(world, st, action: str, args: dict) -> dict:
    """Upstream's feedback choice: the first failing top-level condition; inside an ``or`` the first
    failing atom of its first alternative."""
    room = world.style.player_room(st)
    env = {"p": PLAYER, "r": room, "c": room, "i": INVENTORY, "inventory": INVENTORY}
    env.update({k: (v or None) for k, v in args.items() if isinstance(v, str) or v is None})
    facts = st.facts
    counted = world.ruleset.name.endswith("invlimit")
    idx = [-1]

    def atom(node) -> dict:
        idx[0] += 1
        if node[0] == "less":
            (fn, var), limit = node[1], node[2]
            value = itemcount(st)[2]
            ok = value < limit
            return {"predicate_tuple": [] if ok else [fn, env[var], value], "fulfilled": ok, "precon_idx": idx[0]}
        args = [env.get(a, a) for a in node[1:]]
        ok = True if None in args else (node[0], *args) in facts
        return {"predicate_tuple": [node[0], *args], "fulfilled": ok, "precon_idx": idx[0]}

    top = [_trace(n, atom) for n in _preconditions(action, counted)]
    for item in top:
        if item["fulfilled"]:
            continue
        if "or" in item:
            for alt in item["or"]:
                if "and" in alt:
                    return next(a for a in alt["and"] if not a["fulfilled"])
                if "predicate_tuple" in alt and not alt["fulfilled"]:
                    return alt
            continue
        if "and" in item:
            return next(a for a in item["and"] if not a["fulfilled"])
        return item
    return {"predicate_tuple": [], "fulfilled": False, "precon_idx": -1}   # the engine and upstream disagree


# -- lark's exception texts -------------------------------------------------------------
# How many expansions lark makes of each action rule of basic_actions_v2 (each starts with the verb)
_EXPANSIONS = {"open": 1, "close": 1, "take": 4, "put": 4, "go": 4, "done": 1, "examine": 1}
_WS = "[ \t\f\r\n]"


def lark_message(world, text: str) -> str:
    """``str(exception)`` of upstream's lark parser for a command only its fallback could not read.

    Empty input ends early ("Unexpected end-of-input" with lark's list of
    expected terminals, in grammar order); any other input stops at its first
    character that is neither a letter nor whitespace. There lark lists the
    terminals it could have read, from a Python set: the order follows the
    hash seed and is not reproduced.
    """
    verbs = world.ruleset.options.get("grammar", {}).get("verbs", {})
    if not text:
        names = [a.upper() for a in verbs for _ in range(_EXPANSIONS.get(a, 1))] + ["WORD", "WORD"]
        return "Unexpected end-of-input. Expected one of: \n\t* " + "\n\t* ".join(names) + "\n"
    if text[0] in " \t\f\r\n":
        pos = 0         # nothing starts with whitespace
    else:
        pos = next((i for i, ch in enumerate(text) if not (ch.isascii() and ch.isalpha()) and ch not in " \t\f\r\n"),
                   len(text))
    expected = _Grammar.of(world).expected(text, pos)
    before = text[max(pos - 40, 0):pos].rsplit("\n", 1)[-1]
    after = text[pos:pos + 40].split("\n", 1)[0]
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    char = text[pos] if pos < len(text) else ""
    return (f"No terminal matches '{char}' in the current parser context, at line {line} col {column}\n\n"
            f"{before}{after}\n{' ' * len(before.expandtabs())}^\n"
            "Expected one of: \n\t* " + "\n\t* ".join(expected) + "\n")


class _Grammar:
    """upstream's command grammar as a small automaton over its terminals, for lark's expected terminals."""

    _cache: dict = {}

    @classmethod
    def of(cls, world) -> "_Grammar":
        key = id(world)
        hit = cls._cache.get(key)
        if hit is None or hit.world is not world:
            hit = cls._cache[key] = cls(world)
        return hit

    def __init__(self, world) -> None:
        self.world = world
        grammar = world.ruleset.options.get("grammar", {})
        verbs = grammar.get("verbs", {})
        adjs = world.meta.get("clembench", {}).get("adjectives", ())

        def words(ws, tail=f"{_WS}+"):
            return re.compile("(?:" + "|".join(re.escape(w) for w in ws) + ")" + tail) if ws else None

        self.terminals = {a.upper(): words(v, f"{_WS}*" if a == "done" else f"{_WS}+") for a, v in verbs.items()}
        self.terminals.update({"PREP": words(grammar.get("preps", ())), "DET": words(grammar.get("dets", ())),
                               "ADJ": words(list(adjs)), "WORD": re.compile("[A-Za-z]+"),
                               "WS": re.compile(f"{_WS}+"), "BACK": re.compile("back"), "TO": re.compile("to")})
        self.edges: list[list] = []      # state -> [(terminal or None, next state)]
        thing = ("seq", [("opt", "DET"), ("alt", [("seq", [("plus", "ADJ"), "WORD"]),
                                                  ("seq", [("plus", "ADJ"), "WORD", "WS", "WORD"]),
                                                  ("seq", ["WORD", "WS", "WORD"]), "WORD"]), ("opt", "WS")])
        shapes = {"open": ["OPEN", thing], "close": ["CLOSE", thing], "examine": ["EXAMINE", thing],
                  "done": ["DONE"],
                  "take": ["TAKE", ("star", "PREP"), thing, ("star", ("seq", ["PREP", thing]))],
                  "put": ["PUT", thing, ("star", ("seq", ["BACK", "WS"])), ("star", "PREP"), thing],
                  "go": ["GO", ("star", ("seq", ["BACK", "WS"])), ("star", ("seq", ["TO", "WS"])), thing]}
        rules = [("seq", shapes[a]) for a in verbs if a in shapes]
        rules.append(("plus", ("seq", ["WORD", ("star", "WS")])))
        self.start = self._state()
        self.accept = self._state()
        self._build(("alt", rules), self.start, self.accept)

    def _state(self) -> int:
        self.edges.append([])
        return len(self.edges) - 1

    def _build(self, node, a: int, b: int) -> None:
        if isinstance(node, str):
            self.edges[a].append((node, b))
            return
        kind, body = node
        if kind == "seq":
            cur = a
            for i, part in enumerate(body):
                nxt = b if i == len(body) - 1 else self._state()
                self._build(part, cur, nxt)
                cur = nxt
            if not body:
                self.edges[a].append((None, b))
        elif kind == "alt":
            for part in body:
                self._build(part, a, b)
        elif kind == "opt":
            self._build(body, a, b)
            self.edges[a].append((None, b))
        elif kind in ("star", "plus"):
            mid, loop = self._state(), self._state()
            if kind == "star":
                self.edges[a].append((None, mid))
            else:
                self._build(body, a, mid)
            self._build(body, mid, loop)
            self.edges[loop].append((None, mid))
            self.edges[mid].append((None, b))

    def _closure(self, states) -> set:
        out, stack = set(states), list(states)
        while stack:
            s = stack.pop()
            for t, n in self.edges[s]:
                if t is None and n not in out:
                    out.add(n)
                    stack.append(n)
        return out

    def expected(self, text: str, pos: int) -> list[str]:
        """The terminals some reading of ``text[:pos]`` could go on with at ``pos`` (first-seen order)."""
        active: dict[int, set] = {0: self._closure({self.start})}
        for i in range(pos):
            for s in active.get(i, ()):
                for t, n in self.edges[s]:
                    if t is None or self.terminals.get(t) is None:
                        continue
                    m = self.terminals[t].match(text, i)
                    if m and i < m.end() <= pos:
                        active.setdefault(m.end(), set()).update(self._closure({n}))
        out: list[str] = []
        for s in sorted(active.get(pos, ())):
            for t, _ in self.edges[s]:
                if t is not None and t not in out:
                    out.append(t)
        return out
