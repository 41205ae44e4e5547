"""Where the world file puts each object (``at``, ``in``, ``on``, ``held``), checked and turned into facts.

A misplaced object (in a thing that is no container, on itself, inside a loop
of containers) would make a world that loads but cannot be played or planned,
so each mistake is reported with its line and the fix.
"""

from __future__ import annotations

from typing import Any, Callable

from ..yamlpos import _kind, did_you_mean, pos_of


class PlacementChecks:
    """Mixed into the world builder (which provides ``err`` and the maps it passes in)."""

    # what the class it is mixed into provides (declared for the type checker)
    d: dict
    err: Callable[..., None]
    words: Any

    def location(self, obj, oid, rel, objects, entities, facts) -> None:
        where = obj[rel]
        if rel == "held":
            if where is not True:
                self.err(pos_of(obj, "held"), "held must be true (or leave it out and give another location)")
                return
            facts.append(("held", oid))
            return
        if rel == "held_by":   # a character carries it (a scene's characters: docs/worlds.md)
            chars = self.d.get("characters")
            names = list(chars) if isinstance(chars, dict) else []
            players = [p.get("id") for p in self.d.get("players") or [] if isinstance(p, dict)]
            names += players[1:]   # the first player's own things are held: true
            if players and where == players[0]:
                self.err(pos_of(obj, "held_by"), f"{where!r} plays first: what they carry is held: true")
                return
            if where not in names:
                self.err(pos_of(obj, "held_by"), f"held_by names a character, not {where!r}{did_you_mean(where, names)}"
                         f" (characters: {', '.join(map(str, names)) or 'none'})")
                return
            facts.append(("held_by", oid, where))
            return
        rooms = [e for e in entities if entities[e].kind == "room"]
        if not isinstance(where, str):
            self.err(pos_of(obj, rel), f"{rel} must name {'a room' if rel == 'at' else 'an object'} by its id,"
                     f" not a {_kind(where)} (write '{rel}: <id>')")
            return
        if rel == "at":
            if where in entities and entities[where].kind == "room":
                facts.append((rel, oid, where))
                return
            if where in objects:
                other = self.words(objects[where], "traits", report=False) if isinstance(objects[where], dict) else ()
                fix = "in" if "container" in other else "on"
                self.err(pos_of(obj, "at"), f"{oid!r} is at {where!r}, which is not a room"
                         f" (at is for rooms; for an object write '{fix}: {where}')")
            elif where not in rooms:
                self.err(pos_of(obj, "at"), f"{oid!r} is at {where!r}, which is not a room{did_you_mean(where, rooms)}"
                         " (at names a room id)")
            return
        if where in entities and entities[where].kind == "room":
            self.err(pos_of(obj, rel), f"{oid!r} is {rel} {where!r}, which is a room (write 'at: {where}' for a room)")
            return
        if where not in objects:
            self.err(pos_of(obj, rel), f"{oid!r} is {rel} {where!r}, which is not an object"
                     f"{did_you_mean(where, [o for o in objects if isinstance(o, str)])}"
                     f" ({rel} names an object id)")
            return
        if where == oid:
            self.err(pos_of(obj, rel), f"{oid!r} cannot be {rel} itself (name another object)")
            return
        other = objects.get(where)
        other_traits = set(self.words(other, "traits", report=False)) if isinstance(other, dict) else set()
        needed = "container" if rel == "in" else "support"
        if needed not in other_traits:
            self.err(pos_of(obj, rel), f"{oid!r} is {rel} {where!r}, which is not a {needed}"
                     f" (add the trait {needed} to {where!r})")
        if where in entities:
            facts.append((rel, oid, where))

    def cycles(self, objects) -> None:
        parent = {}
        for oid, obj in objects.items():
            if isinstance(obj, dict):
                for rel in ("in", "on"):
                    if isinstance(obj.get(rel), str) and obj[rel] != oid:
                        parent[oid] = (obj[rel], rel)
        for oid in parent:
            x, steps = parent[oid][0], 0
            while x is not None and steps <= len(parent):
                if x == oid:
                    rel = parent[oid][1]
                    self.err(pos_of(objects[oid], rel), f"{oid!r} ends up inside itself (its in/on chain loops"
                             f" back to it; give one of the objects in the loop another location)")
                    break
                x, steps = parent.get(x, (None,))[0], steps + 1
