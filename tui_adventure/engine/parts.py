"""What a world's parts (its style, its parser, its scene) hold of it: the world itself.

A part holds its world for as long as the part is held, so a style or parser
kept without its world keeps working. What a part reads on every step (the
entities, their order, the world's namers) it also holds directly.
"""

from __future__ import annotations


class WorldPart:
    """A style, parser or scene of ``world``."""

    entities: dict
    order: dict

    def part_of(self, world) -> None:
        self.world = world
        self.entities, self.order = world.entities, world.order
        self.name_of, self.sort_ids = world.name_of, world.sort_ids


class StylePart(WorldPart):
    """A style: its tables are its own (a parser's are shared by the worlds of a layout)."""

    def untie(self) -> None:
        """Empty its tables and caches (``World.close``): some hold methods bound to the style itself,
        which would keep it in a reference cycle. The style is not to be used after."""
        for value in vars(self).values():
            if type(value) is dict and value is not self.entities and value is not self.order:
                value.clear()
