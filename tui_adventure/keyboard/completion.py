"""What can be typed in a world: its verbs, and the names that fit the word being typed.

Both front ends complete words with Tab and show the verbs in their help;
the answers depend on the world (its actions and their patterns, fixed) and
on the state (what is in sight, the ways out), never on the front end, so
they live here once, over a world and a state.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property

from ..engine.parsers.patterns import SLOT


class Words:
    def __init__(self, world) -> None:
        self.world = world

    @cached_property
    def _verbs(self) -> list[str]:
        return sorted(self._verb_words(phrases=True))

    def _verb_words(self, phrases: bool) -> set[str]:
        """First words of the world's patterns; ``phrases=False`` leaves out the first word of a fixed
        phrase of several words ("i'm" of "i'm done"), which starts a sentence but is no verb."""
        verbs = set()
        for action in self.world.actions:
            if not action.spec.syntax:   # clembench's actions: upstream's grammar, where the id is the verb
                verbs.add(action.id)
            for syn in action.spec.syntax:
                words = syn.split()
                if not words[0].startswith("{") and (phrases or len(words) == 1 or "{" in syn):
                    verbs.update(words[0].split("|"))
        return verbs

    @cached_property
    def help_verbs(self) -> list[str]:
        """The verbs a help text lists: every word a command starts with but those of fixed phrases."""
        return sorted(self._verb_words(phrases=False))

    def main_verbs(self) -> list[str]:
        """One verb per action (its first pattern's), for help texts: the synonyms are for typing."""
        out: list[str] = []
        for action in self.world.actions:
            first = action.spec.syntax[0].split()[0].split("|")[0] if action.spec.syntax else action.id
            if not first.startswith("{") and first not in out:
                out.append(first)
        return out

    def verbs(self) -> list[str]:
        """The world's verbs: fixed for a world, and asked for on every keystroke of the REPL."""
        return list(self._verbs)

    def exits(self, st, room) -> list[tuple[str | None, str]]:
        """(direction label or None, target room) of the room's exits."""
        return [(e.label, e.target) for e in self.world.style.exits(st, room)] if room else []

    def names_for(self, head: str, st) -> list[str] | None:
        """Names that fit the slot being typed after ``head`` ("take" -> things that can be taken here,
        "go" -> the ways out, "put letter in" -> things in sight); empty when no verb pattern fits."""
        world = self.world
        words = " ".join(head.lower().split())
        names: set[str] = set()
        matched = False
        for action in world.actions:
            for syntax in action.spec.syntax:
                slot = _slot_after(syntax, words)
                if slot is None:
                    continue
                kind = action.spec.params.get(slot, "thing")
                room = world.style.player_room(st)
                if kind == "dir":
                    names.update(e.label for e in world.style.exits(st, room) if e.label)
                elif kind == "room":
                    names.update(world.name_of(e.target) for e in world.style.exits(st, room))
                elif kind == "thing":
                    # only things of the right kind (takeable for take, containers after "put X in"):
                    # the action's checks on fixed traits, which the ruleset decides once per world
                    allowed = action.allowed.get(slot)
                    names.update(world.name_of(e) for e in world.style.scope(st) if e in world.entities
                                 and world.entities[e].kind == "object" and not world.entities[e].hidden
                                 and (allowed is None or e in allowed))
                matched = True
        if not matched:
            return None              # no verb pattern leads here: any name in sight may do
        return sorted(n for n in names if n)

    def names_in_sight(self, st) -> list[str]:
        """Names of the things the player can refer to now, and the ways out."""
        world = self.world
        style = world.style
        names = {world.name_of(e) for e in style.scope(st) if e in world.entities
                 and world.entities[e].kind == "object" and not world.entities[e].hidden}
        for label, target in self.exits(st, style.player_room(st)):
            if label:
                names.add(label)
            if target in world.entities:
                names.add(world.name_of(target))
        return sorted(n for n in names if n)

    def complete(self, text: str, st, extra: Sequence[str] = ()) -> tuple[int, list[str]]:
        """(where the word being completed starts, candidates): verbs (and ``extra`` words) first, then names."""
        stripped = text.lstrip()
        lead = len(text) - len(stripped)
        if stripped.startswith(">"):
            lead += 1 + (len(stripped[1:]) - len(stripped[1:].lstrip()))
            stripped = stripped[1:].lstrip()
        if " " not in stripped:
            words = self.verbs() + list(extra)
            return lead, sorted({w for w in words if w.startswith(stripped.lower())})
        head, _, tail = stripped.rpartition(" ")
        start = len(text) - len(tail)
        tl = tail.lower()
        out = set()
        fitting = self.names_for(head, st)
        for name in fitting if fitting is not None else self.names_in_sight(st):
            if name.startswith(tl):
                out.add(name)
            for w in name.split()[1:]:
                if w.startswith(tl) and " " not in tl:
                    out.add(w)
        return start, sorted(out)


def _slot_after(syntax: str, head: str) -> str | None:
    """The slot of ``syntax`` that the word typed after ``head`` fills, or None when ``head`` does not
    lead into a slot of this pattern (``take`` -> ``obj`` for "take {obj}")."""
    parts: list[str] = []
    for token in syntax.split():
        m = SLOT.fullmatch(token)
        if m and re.fullmatch(" ".join(parts), head):
            return m.group(1)
        parts.append(r".+?" if m else "(?:" + "|".join(re.escape(w) for w in token.split("|")) + ")")
    return None


class GameWords:
    """What can be typed in a game without our engine's grammar (a story file): the verbs such games
    share (Inform's and Infocom's), completed as our worlds' are; no names (the game does not list them)."""

    VERBS = ("attack", "climb", "close", "down", "drink", "drop", "east", "eat", "enter", "examine", "exit",
             "get", "give", "go", "inventory", "jump", "kill", "light", "listen", "lock", "look", "move", "north",
             "northeast", "northwest", "open", "pull", "push", "put", "read", "remove", "say", "search", "show",
             "smell", "south", "southeast", "southwest", "take", "talk", "tell", "throw", "turn", "unlock",
             "up", "wait", "wear", "west")

    help_verbs = list(VERBS)

    def main_verbs(self) -> list[str]:
        return list(self.VERBS)

    def verbs(self) -> list[str]:
        return list(self.VERBS)

    @staticmethod
    def exits(st, room) -> list[tuple[str | None, str]]:
        return []

    def complete(self, text: str, st=None, extra: Sequence[str] = ()) -> tuple[int, list[str]]:
        """(where the word being completed starts, candidates): the first word only."""
        stripped = text.lstrip().removeprefix(">").lstrip()
        if " " in stripped:
            return len(text), []
        return len(text) - len(stripped), sorted({w for w in (*self.VERBS, *extra) if w.startswith(stripped.lower())})
