"""The clembench style: adventuregame v2.1's texts, parser and world layout.

Upstream keeps its state in a Python set, so its lists come out in an order
that changes between runs; here everything is listed in the order of the
instance's ``initial_state`` (which is also the world's entity order).
"""

from __future__ import annotations

import re

from ..parts import StylePart, WorldPart
from ..parsers import ClemParser, ParseFailure
from ..planning.heuristic import transport_heuristic
from .base import ROOM_TEXT, Exit
from ..parsers import Failure, Parsed

PLAYER = "player1"
INVENTORY = "inventory"
_AT_PLAYER = ("at", PLAYER)
_HELD = ("in", INVENTORY)   # by-second index keys: what is held; every closed thing, every open one (see State.of)
_CLOSED = ("closed", "")
_OPEN = ("open", "")


_EMPTY: frozenset = frozenset()


class _Rank(dict):
    """Entity id -> its place in the world's order; any other id after them all (``World.sort_ids``)."""

    def __missing__(self, eid) -> int:
        return 1 << 30


class _Names(dict):
    """Entity id -> its name; any other id is its own name (``World.name_of``)."""

    def __missing__(self, eid) -> str:
        return str(eid)


def _a_list(names: list[str]) -> str:
    """``a x, a y and a z``: ``english_list`` of "a name"s, as it joins them (a room's description, the
    inventory's and a container's texts say one most turns)."""
    if len(names) > 1:
        return f"a {', a '.join(names[:-1])} and a {names[-1]}"
    return f"a {names[0]}" if names else ""


def _no_words(st) -> tuple:
    return ()


class ClembenchStyle(StylePart):
    put_needs_held = False
    player_at = _AT_PLAYER   # see Style.player_at: player_room reads this entry

    def __init__(self, world) -> None:
        self.part_of(world)
        facts = world.initial_facts
        self.type_of = {f[1]: f[2] for f in facts if f[0] in ("type", "room") and len(f) == 3}
        self.ids_of_type: dict[str, list[str]] = {}
        for eid, t in self.type_of.items():
            self.ids_of_type.setdefault(t, []).append(eid)
        self.ids_of_type.setdefault(INVENTORY, [INVENTORY])
        self.first_of_type = {t: ids[0] for t, ids in self.ids_of_type.items() if ids}   # what a type's name reaches
        self.rooms = [f[1] for f in facts if f[0] == "room"]
        self.floors = {f[1] for f in facts if f[0] == "type" and f[2] == "floor"}
        self._unlisted = frozenset(self.floors | {PLAYER, INVENTORY})   # never in a room's list
        self.builtins: dict = {}
        self._names = _Names({eid: e.name for eid, e in world.entities.items()})   # name_of as one lookup
        self._rank = _Rank(world.order).__getitem__   # an id's place in the instance's order, as World.sort_ids
        self._passages: dict[frozenset, str] = {}   # exits' index entry -> their sentence (_passages_of)

    sight = None   # its commands are computed per whole state (no locality promised)

    # Its tables of its own methods are made on each reading: kept on the style, they would hold it in a
    # reference cycle (and its world's states with it) for Python's collector.
    @property
    def functions(self) -> dict:
        return {"room_description": self.room_description, "container_content": self.container_content,
                "inventory_desc": self.inventory_desc, "examine_desc": self.examine_desc}

    @property
    def domains(self) -> dict:
        return {"thing": self.things_here, "room": self.room_list, "word": _no_words}

    def make_parser(self, world):
        return ClemCommandParser(world, self)

    # where things are ------------------------------------------------------
    def player_room(self, st) -> str | None:
        # as st.rest("at", player) reads it
        at = st.o1.get(_AT_PLAYER)
        for r in (st.b1.get(_AT_PLAYER, ()) if at is None else at):
            return r[0]
        return None

    def things_here(self, st) -> list[str]:
        hit = st.cache.get("here")
        if hit is None:
            # as st.firsts("at", room) and World.sort_ids give them
            room = self.player_room(st)
            k = ("at", room)
            v = st.o2.get(k)
            ids = st.b2.get(k, _EMPTY) if v is None else v
            hit = sorted(ids, key=self._rank)
            if PLAYER in ids:
                hit.remove(PLAYER)
            st.cache["here"] = hit
        return hit

    def room_list(self, st) -> list[str]:
        return self.rooms

    def scope(self, st) -> frozenset:
        return frozenset(x for x in self.things_here(st) if ("accessible", x) in st)

    def held(self, st) -> list[str]:
        return sorted(st.firsts("in", INVENTORY), key=self._rank)

    def name(self, eid: str) -> str:
        return self.name_of(eid)

    def _bare(self, eid: str) -> str:
        """The id without its trailing digits: upstream's examine texts speak that way ("sidetable")."""
        return re.sub(r"\d+$", "", eid)

    # texts -----------------------------------------------------------------
    def first_observation(self, st) -> str:
        return self.room_description(st)

    def room_description(self, st) -> str:
        """Kept in the state's own cache: the text is a function of the facts alone, and the states a
        game meets again are the same objects (an action's memo hands them out), so none is hashed."""
        cache = st.cache
        text = cache.get(ROOM_TEXT)
        if text is None:
            text = cache[ROOM_TEXT] = self._describe_room(st)
        return text

    def _describe_room(self, st) -> str:
        """The room, what it lists (the things here but the player, floors, the inventory, what is held
        and what is in a closed container, in the instance's order), each listed thing's state, and
        the passages. Read through the state's indexes in this one frame (an episode reads a room's
        description most turns, mostly of a state no one described before): who is held, closed or
        open is one set each (the by-second entries of ``in(_, inventory)``, ``closed`` and ``open``),
        so a thing costs a lookup in each, not a fact made and looked up in the overlay and the base."""
        names = self._names
        o1, b1, o2, b2 = st.o1, st.b1, st.o2, st.b2
        at = o1.get(_AT_PLAYER)   # as player_room reads it
        room = None
        for r in (b1.get(_AT_PLAYER, ()) if at is None else at):
            room = r[0]
            break
        k = ("at", room)
        v = o2.get(k)
        here = b2.get(k, _EMPTY) if v is None else v
        v = o2.get(_HELD)
        held = b2.get(_HELD, _EMPTY) if v is None else v
        v = o2.get(_CLOSED)
        closed = b2.get(_CLOSED, _EMPTY) if v is None else v
        v = o2.get(_OPEN)
        opened = b2.get(_OPEN, _EMPTY) if v is None else v
        floors = self.floors
        listed: list = []
        lines: list = []
        for x in sorted(here.difference(self._unlisted, held), key=self._rank):
            k = ("in", x)
            v = o1.get(k)
            ins = b1.get(k, _EMPTY) if v is None else v
            if ins and closed:
                hidden = False
                for (c,) in ins:
                    if c in closed:
                        hidden = True
                        break
                if hidden:
                    continue
            n = names[x]
            listed.append(n)
            if x in closed:
                lines.append(f"The {n} is closed.")
            if x in opened:
                lines.append(f"The {n} is open.")
            if ins:
                if len(ins) == 1:
                    for (c,) in ins:
                        lines.append(f"The {n} is in the {names[c]}.")
                else:
                    for c in self._in_order(ins):
                        lines.append(f"The {n} is in the {names[c]}.")
            k = ("on", x)
            v = o1.get(k)
            ons = b1.get(k, _EMPTY) if v is None else v
            if ons:
                if len(ons) == 1:
                    for (c,) in ons:
                        lines.append(f"The {n} is on the {'floor' if c in floors else names[c]}.")
                else:
                    for c in self._in_order(ons):
                        lines.append(f"The {n} is on the {'floor' if c in floors else names[c]}.")
        k = ("exit", room)
        v = o1.get(k)
        exits = b1.get(k, _EMPTY) if v is None else v
        head = f"You are in a {names[room]} now."
        if len(listed) > 1:
            head = f"{head} There are {_a_list(listed)}."
        elif listed:
            head = f"{head} There is a {listed[0]}."
        if exits:
            passages = self._passages.get(exits)
            if passages is None:
                passages = self._passages_of(exits)
            lines.append(passages)
        if not lines:
            return head
        lines.insert(0, head)
        return " ".join(lines)

    def _passages_of(self, exits: frozenset) -> str:
        """The passages' sentence, kept by the exits' set: exits rarely change, and an episode reads a
        room's description most turns (the sorted list and its words were a tenth of each reading).
        The set is the state's own index entry, whose hash Python keeps once worked out."""
        names = self._names
        if len(exits) == 1:
            for (r,) in exits:
                text = f"There is a passage to a {names[r]} here."
        else:
            text = f"There are passages to {_a_list([names[r] for r in self._in_order(exits)])} here."
        if len(self._passages) >= 1024:   # at most 1,024 exits' sentences
            self._passages.clear()
        self._passages[exits] = text
        return text

    def _in_order(self, rests) -> list[str]:
        """The first items of ``rests`` (an index entry's tails) in the instance's order."""
        return sorted([r[0] for r in rests], key=self._rank)

    def _sorted_rest(self, st, pred: str, first: str) -> list[tuple]:
        rests = st.rest(pred, first)
        if len(rests) < 2:   # most things are on or in one thing: nothing to sort
            return list(rests)
        order = self.order
        return sorted(rests, key=lambda r: order.get(r[0], 1 << 30))

    def exits(self, st, room: str) -> list[Exit]:
        return [Exit(None, r, None) for (r,) in self._sorted_rest(st, "exit", room)]

    def door_exits(self) -> None:
        return None      # upstream's home domain has passages, no doors

    def container_content(self, st, c: str) -> str:
        names = self._names   # name_of and sort_ids as C lookups: a message an episode reads
        inside = [names[x] for x in sorted(st.firsts("in", c), key=self._rank)]
        if not inside:
            return f"The {names[c]} is empty."
        if len(inside) == 1:
            return f"In the {names[c]} there is a {inside[0]}."
        return f"In the {names[c]} there are {_a_list(inside)}."

    def inventory_desc(self, st) -> str:
        names = self._names
        held = [names[x] for x in sorted(st.firsts("in", INVENTORY), key=self._rank)]
        if not held:
            return "Your inventory is empty."
        return f"In your inventory you have {_a_list(held)}."

    def examine_desc(self, st, e: str) -> str:
        facts = st   # reads through a derived state's overlay
        bare = self._bare(e)
        out = []
        if ("in", e, INVENTORY) in facts:
            out.append(f"The {bare} is in your inventory.")
        else:
            for (s,) in self._sorted_rest(st, "on", e):
                out.append(f"The {bare} is on the {self._bare(s)}.")
            for (c,) in self._sorted_rest(st, "in", e):
                out.append(f"The {bare} is in the {self._bare(c)}.")
        if ("takeable", e) in facts:
            out.append(f"The {bare} is takeable.")
        if ("openable", e) in facts:
            state = "open" if ("open", e) in facts else "closed"
            out.append(f"The {bare} is openable and currently {state}.")
        if ("container", e) in facts and e != INVENTORY:
            if ("closed", e) in facts:
                out.append(f"You can't see the {bare}'s contents because it is closed.")
            else:
                inside = [self._bare(x) for x in self.sort_ids(st.firsts("in", e))]
                if not inside:
                    out.append(f"The {bare} is empty.")
                elif len(inside) == 1:
                    out.append(f"There is a {inside[0]} in the {bare}.")
                else:
                    out.append(f"There are {_a_list(inside)} in the {bare}.")
        if ("support", e) in facts:
            on = [self._bare(x) for x in self.sort_ids(st.firsts("on", e))]
            if not on:
                out.append(f"There is nothing on the {bare}.")
            elif len(on) == 1:
                out.append(f"There is a {on[0]} on the {bare}.")
            else:
                out.append(f"There are {_a_list(on)} on the {bare}.")
        return " ".join(out)

    # for the parser ------------------------------------------------------------
    def id_for_type(self, t: str | None, st) -> str | None:
        return self.first_of_type.get(t or "")

    def receptacle_of(self, st, e: str | None) -> str | None:
        """``take X`` without ``from``: X's first on/in fact, in initial-state order."""
        order = self.order
        best, rank = None, None
        # what sorting the "on" then the "in" receptacles by order (stably) would put first
        for pred in ("on", "in"):
            for r in st.rest(pred, e):
                k = order.get(r[0], 1 << 30)
                if rank is None or k < rank:
                    best, rank = r[0], k
        return best

    def nameable(self, x: str) -> bool:
        """Whether typing this thing's name reaches it ("floor" means one floor only)."""
        return self.id_for_type(self.type_of.get(x), None) == x

    def plannable(self, action, env: dict, st) -> bool:
        """Only moves a player could type: the planner must not use a second floor, say."""
        if action.id == "take":
            return self.nameable(env["e"]) and (env["s"] == self.receptacle_of(st, env["e"]) or self.nameable(env["s"]))
        return all(self.nameable(env[p]) for p in action.params)

    def command_text(self, action, env: dict, st) -> str:
        n = self.name
        if action.id == "go":
            return f"go {n(env['d'])}"
        if action.id == "take":
            if env.get("s") and env["s"] != self.receptacle_of(st, env["e"]):
                return f"take {n(env['e'])} from {n(env['s'])}"
            return f"take {n(env['e'])}"
        if action.id == "put":
            prep = "in" if ("container", env["t"]) in st else "on"
            return f"put {n(env['e'])} {prep} {n(env['t'])}"
        if action.id in ("open", "close", "examine"):
            return f"{action.id} {n(env['e'])}"
        return action.id

    # for the planner ---------------------------------------------------------
    def heuristic(self, goals):
        return transport_heuristic(self, goals)

    def room_graph(self) -> dict[str, set[str]]:
        graph: dict[str, set[str]] = {r: set() for r in self.rooms}
        for f in self.initial_facts:
            if f[0] == "exit":
                graph.setdefault(f[1], set()).add(f[2])
        return graph

    def is_held(self, st, x: str) -> bool:
        return ("in", x, INVENTORY) in st

    def is_door(self, x: str) -> bool:
        return False

    relevance_keys = False   # what is held counts (an inventory limit): a distractor held can cost a drop

    def widens_relevance(self, fact: tuple, relevant: frozenset) -> bool:
        return True   # never asked: no relevance keys

    def gone(self, st, x: str) -> bool:
        return False   # adventuregame's actions move things; none takes one out of the game

    def movable(self, st, x: str) -> bool:
        return ("takeable", x) in st.facts

    def room_of(self, st, x: str) -> str | None:
        for r in st.rest("at", x):
            return r[0]
        return None

    def closed_chain(self, st, x: str, include_self: bool = False) -> set:
        out = {x} if include_self and ("closed", x) in st else set()
        for (c,) in st.rest("in", x):
            if ("closed", c) in st:
                out.add(c)
        return out

    def relevant_objects(self, goals, st=None) -> frozenset:
        """Goal things and the containers holding them in ``st`` (the initial state by default);
        moving anything else never helps."""
        st = st if st is not None else self.initial
        relevant = {a for g in goals for a in g.fact[1:] if a not in self.rooms}
        for x in list(relevant):
            relevant.update(c for (c,) in st.rest("in", x) if ("openable", c) in st)
        return frozenset(relevant)


class _HeldTypes:
    """The types of what is held, worked out only when the parser asks (for "take X from inventory")."""

    __slots__ = ("type_of", "st")

    def __init__(self, type_of: dict, st) -> None:
        self.type_of, self.st = type_of, st

    def __contains__(self, t) -> bool:
        return t in {self.type_of.get(x) for x in self.st.firsts("in", INVENTORY)}


class ClemCommandParser(WorldPart):
    """Upstream's parsing phase (``ClemParser``), resolved to this world's ids."""

    def __init__(self, world, style: ClembenchStyle) -> None:
        self.part_of(world)
        self.style = style
        meta = world.meta.get("clembench", {})
        grammar = world.ruleset.options.get("grammar", {})
        self.parser = ClemParser(meta.get("entity_names", {}), meta.get("room_names", {}),
                                 grammar.get("verbs", {}), meta.get("adjectives", ()),
                                 grammar.get("preps", ()), grammar.get("dets", ()))
        self.actions = {a.id: a for a in world.actions}
        self.once: dict = {}   # upstream's grammar reads every command against the room: none is read once

    def parse(self, text: str, st, last=()):
        """Upstream's grammar has no pronouns: ``last`` (what "it" means) is accepted and unused."""
        style = self.style
        type_of = style.type_of
        held = _HeldTypes(type_of, st)
        at = st.o1.get(_AT_PLAYER)   # as style.player_room reads it
        room = None
        for r in (st.b1.get(_AT_PLAYER, ()) if at is None else at):
            room = r[0]
            break
        got = self.parser.parse_fields(text, type_of.get(room, ""), held)
        if isinstance(got, ParseFailure):
            return Failure(got.phase, got.fail_type, got.message)
        verb, arg1, arg2, prep, t1, t2, _ = got
        action = self.actions.get(verb)
        if action is None:
            return Failure("parsing", "undefined_action", f"I don't know how to interpret this '{verb}' action.")
        first_of = style.first_of_type
        first = first_of.get(t1) if t1 else None
        if arg1 is not None and first is None:
            return Failure("resolution", "entity_not_accessible", f"You can't see a {arg1} here.")
        second = first_of.get(t2) if t2 else None
        if arg2 is not None and second is None:
            return Failure("resolution", "entity_not_accessible", f"You can't see a {arg2} here.")
        if verb == "go":
            env = {"prep": prep, "d": first}
        elif verb == "take":
            env = {"prep": prep, "e": first,
                   "s": second if arg2 is not None else (style.receptacle_of(st, first) or "")}
        elif verb == "put":
            env = {"prep": prep, "e": first, "t": second}
            if second is None:
                return Failure("parsing", "malformed_command", "I don't know what you mean.")
            if prep is None:  # "put book shelf": upstream's reply supplies the preposition
                env["prep"] = "in" if ("container", second) in st else "on"
        else:
            env = {"prep": prep}
            params = action.params
            if params:
                env[params[0]] = first
        return Parsed(action, env)

    def answer(self, text, question, st, last=()):
        return None
