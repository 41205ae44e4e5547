"""What a world's parts (its style, its parser) hold of it: a weak reference.

A world holds its style and parser, and they read it back; held strongly both
ways, every world would be a reference cycle of a few hundred objects, freed
only by Python's collector, and a trainer that draws a world each episode
spent a fifth to a third of its time in that collector. Held weakly, a world
let go is freed on the spot (``World.__del__`` unties the rest). A part is
then of use only while its world is: asked for it after, it says so.
"""

from __future__ import annotations

import weakref


class WorldPart:
    """A style or parser: ``world`` is its world, or ReferenceError once that world is gone. What it
    reads on every step (the entities, their order) it holds itself: the weak reference costs a call."""

    _world: weakref.ref
    entities: dict
    order: dict

    def part_of(self, world) -> None:
        self._world = weakref.ref(world)
        # the world's own, which name none of it (World._namers): name_of(eid), sort_ids(ids)
        self.entities, self.order = world.entities, world.order
        self.name_of, self.sort_ids = world.name_of, world.sort_ids

    @property
    def world(self):
        world = self._world()
        if world is None:
            raise ReferenceError(f"the world of this {type(self).__name__} was let go: keep the World while"
                                 f" its style, parser or actions are used (style = world.style, world kept)")
        return world


class StylePart(WorldPart):
    """A style: its tables are its own (a parser's are shared by the worlds of a layout)."""

    def untie(self) -> None:
        """Its world is gone (``World.__del__``): let go of its tables, bound methods of itself among
        them, and its caches, which name actions and states (not the world's entities and order)."""
        for value in vars(self).values():
            if type(value) is dict and value is not self.entities and value is not self.order:
                value.clear()
