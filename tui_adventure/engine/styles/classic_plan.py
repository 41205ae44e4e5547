"""The classic style's side the planner reads: what can matter to the goals, the rooms' graph, doors
and their keys (apart from classic.py, which a step reads through)."""

from __future__ import annotations

from typing import Any

from functools import cached_property

from ..planning.heuristic import transport_heuristic


class ClassicPlanning:
    """Mixed into ``ClassicStyle``, whose ``world``, ``parent`` and ``closed`` it reads."""

    # what the class it is mixed into provides (declared for the type checker)
    parent: Any
    closed: Any
    entities: dict
    initial: Any
    initial_facts: list

    put_needs_held = True
    # a state's distance to the goals depends only on its facts that name a relevant object or none
    # (Distances keys on those): an optimal plan binds only relevant objects, whose actions read nothing
    # else, since the classic rules carry any number of things (no count of what is held) and nothing
    # about an irrelevant thing (where it is, open, eaten) enables or blocks a move of a relevant one
    relevance_keys = True
    plannable = None   # every grounded move of the classic rules is a real move

    def heuristic(self, goals):
        return transport_heuristic(self, goals)

    def relevant_objects(self, goals, st=None) -> frozenset:
        """Objects whose state can matter to the goals; the planner leaves the others alone.

        Goal objects; whatever holds one of them (it may have to be opened or
        carried); every door, and the key of any relevant lock; closed under
        those rules, in ``st`` (the initial state by default). An action on irrelevant objects only
        changes facts about irrelevant objects, so dropping it from a plan keeps the plan valid.
        """
        st = st if st is not None else self.initial
        base, keys_of = self._relevance(tuple(goals))
        movable = self._movable
        relevant = set(base)
        todo = list(base)   # a worklist: each object is looked at once (chains 800 deep stay linear)
        parent_of = self.parent
        while todo:
            parent = parent_of(st, todo.pop())
            if parent in movable and parent not in relevant:
                relevant.add(parent)
                todo.append(parent)
                for key in keys_of.get(parent, ()):
                    if key not in relevant:
                        relevant.add(key)
                        todo.append(key)
        return frozenset(relevant)

    def widens_relevance(self, fact: tuple, relevant: frozenset) -> bool:
        """Whether a state holding ``fact`` has more relevant objects than ``relevant`` (closed as
        ``relevant_objects`` closes it): a relevant thing in or on something movable outside it."""
        if len(fact) != 3 or fact[0] not in ("in", "on") or fact[1] not in relevant:
            return False
        return fact[2] in self._movable and fact[2] not in relevant

    def _relevance(self, goals: tuple) -> tuple[frozenset, dict]:
        """What relevance starts from, for these goals: their objects, every door and the keys of
        every lock among them (closed over keys), with each lock's keys. No classic action changes
        a door or a key's lock, so once."""
        hit = self._relevance_memo.get(goals)
        if hit is not None:
            return hit
        objects = self._objects
        facts = self.initial.facts
        keys_of: dict[str, list[str]] = {}
        for f in facts:
            if f[0] == "unlocks":
                keys_of.setdefault(f[2], []).append(f[1])
        base = {a for g in goals for a in g.fact[1:] if a in objects}
        base |= {x for (p, *rest) in facts if p == "door" for x in rest}
        todo = list(base)
        while todo:
            for key in keys_of.get(todo.pop(), ()):
                if key not in base:
                    base.add(key)
                    todo.append(key)
        hit = self._relevance_memo[goals] = (frozenset(base), keys_of)
        return hit

    @cached_property
    def _relevance_memo(self) -> dict:
        return {}

    @cached_property
    def _movable(self) -> frozenset:
        """What can be carried or opened: a holder of a relevant thing that is one matters too."""
        return frozenset(f[1] for f in self.initial.facts
                         if f[0] in ("takeable", "openable") and len(f) == 2)

    def room_graph(self) -> dict[str, set[str]]:
        graph: dict[str, set[str]] = {r: set() for r in [e.id for e in self.entities.values() if e.kind == "room"]}
        for f in self.initial_facts:
            if f[0] == "exit":
                graph.setdefault(f[1], set()).add(f[3])
        return graph

    def door_exits(self) -> dict:
        """(room, next room) -> the door between them, for exits that have one."""
        out = {}
        via = {(f[1], f[2]): f[3] for f in self.initial_facts if f[0] == "via"}
        for f in self.initial_facts:
            if f[0] == "exit" and (f[1], f[2]) in via:
                out[(f[1], f[3])] = via[(f[1], f[2])]
        return out

    def is_held(self, st, x: str) -> bool:
        return ("held", x) in st

    def gone(self, st, x: str) -> bool:
        """No place up its chain (eaten, or in something eaten): the classic rules give a thing a place
        only by dropping or putting it (held first) or by taking it (in sight first, and sight starts
        from the room and what is held), so it never comes back."""
        if x not in self._objects or not st.having("eaten"):   # only eating takes a place away
            return False
        for _ in range(64):
            if ("held", x) in st:
                return False
            p = self.parent(st, x)
            if p is None:
                return True
            if p not in self._objects:   # a room
                return False
            x = p
        return False

    @cached_property
    def _objects(self) -> frozenset:
        return frozenset(e.id for e in self.entities.values() if e.kind == "object")

    def movable(self, st, x: str) -> bool:
        """Whether x can be carried (itself or whatever holds it): then things may be brought to it."""
        for _ in range(64):
            if x is None or ("takeable", x) in st:
                return x is not None
            x = self.parent(st, x)
        return True

    def is_door(self, x: str) -> bool:
        return ("door", x) in self.initial.facts

    def room_of(self, st, x: str) -> str | None:
        """The room x is in (through containers and supports); None when carried or gone."""
        for _ in range(64):
            if ("held", x) in st:
                return None
            for r in st.rest("at", x):
                return r[0]
            x = self.parent(st, x)
            if x is None:
                return None
        return None

    def closed_chain(self, st, x: str, include_self: bool = False) -> set:
        out = set()
        if include_self and self.closed(st, x):
            out.add(x)
        for _ in range(64):
            parent = None
            for r in st.rest("in", x):
                parent = r[0]
            if parent is None:
                for r in st.rest("on", x):
                    parent = r[0]
            if parent is None:
                return out
            if self.closed(st, parent):
                out.add(parent)
            x = parent
        return out
