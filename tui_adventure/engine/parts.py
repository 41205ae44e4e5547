"""What a world's parts (its style, its parser, its scene) hold of it: what they read, not the world.

A part holds what it reads of its world (the entities and their order, the
namers, the initial state and facts, the intro), so it works for as long as
anyone holds it, with or without its world; and since nothing a world holds
names the world back, a world let go is freed by reference counts at once.
"""

from __future__ import annotations


class WorldPart:
    """A style, parser or scene of ``world``."""

    entities: dict
    order: dict

    def part_of(self, world) -> None:
        self.entities, self.order = world.entities, world.order
        self.name_of, self.sort_ids = world.name_of, world.sort_ids
        self.initial, self.initial_facts, self.intro = world.initial, world.initial_facts, world.intro


class StylePart(WorldPart):
    """A style: its tables are its own (a parser's are shared by the worlds of a layout)."""

    def untie(self) -> None:
        """Empty its tables and caches (``World.close``): some hold methods bound to the style itself,
        which would keep it in a reference cycle. The style is not to be used after."""
        for value in vars(self).values():
            if type(value) is dict and value is not self.entities and value is not self.order:
                value.clear()
