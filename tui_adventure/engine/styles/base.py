"""What every style provides (the ``Style`` protocol) and what styles share."""


from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol

# a state's cache: its room's text, kept by the style that renders it (an action's memo keys there are
# tuples of other shapes)
ROOM_TEXT = ("room description",)


class Exit(NamedTuple):
    """One way out of a room, the same shape in every style."""

    label: str | None      # a direction or passage name ("north", "trapdoor"); None where exits have no names
    target: str            # the room it leads to
    door: str | None       # the door on it, if any


class Sight(NamedTuple):
    """A style's promise about what a state's commands can read (``engine.planning.sight``).

    ``ids(st)``: the player's room first, then the ids around the player (what is in sight and held,
    the player); ``constants``: ids that are in ``ids(st)`` in every state; ``kinds``: the parameter
    kinds whose every candidate is in ``ids(st)``. What the style promises: its domains, its command
    texts and its builtins given ids in ``ids(st)`` read no changeable fact that names none of
    ``ids(st)``. The rules' own reads are checked, not promised (``sight.local_view``).

    ``builtin_reads``, when not None, promises more (``engine.planning.touches``): the command texts read
    a state only through ``scope(st)``, and the builtins only through ``scope(st)`` and facts of these
    predicates, so a state whose scope is that of the state before shares the texts of the actions its
    change leaves alone."""

    ids: Callable
    constants: frozenset
    kinds: frozenset
    builtin_reads: frozenset | None = None


class CommandParser(Protocol):
    """Reads a typed command against a state. One parser serves every game of a world, so it keeps
    no game's state: what "it" means (``last``) is passed in by the game and kept there."""

    once: dict   # a command of one word read alike in every state -> (action, env); {} where none are

    def parse(self, text: str, st, last=()) -> Any:
        """A ``Parsed`` command, a ``Failure`` (its phase, type and message) or a ``Question``."""
        ...

    def answer(self, text: str, question, st, last=()) -> Any:
        """``text`` read as the answer to ``question`` (a ``Parsed``), or None when it is a new command."""
        ...


class Style(Protocol):
    """What the engine, the planner and the front ends ask of a ruleset family (classic, clembench).

    The rules are data; a style supplies what data cannot say well. Every
    member is implemented by every style (a style without a feature says so
    with None or an empty value, never by leaving the member out), so no
    caller probes with ``hasattr``.
    """

    # read-only members (a style may compute them on each reading)
    @property
    def builtins(self) -> dict[str, Callable]: ...   # Python helpers rule conditions may call (visible, encloses); {} if none
    @property
    def functions(self) -> dict[str, Callable]: ...   # text functions message templates may call
    @property
    def domains(self) -> dict[str, Callable]: ...   # per parameter kind: the candidates the planner grounds actions over
    @property
    def plannable(self) -> Callable | None: ...   # (action, env, state) -> bool, filtering grounded moves; None: all are
    @property
    def player_at(self) -> tuple | None: ...   # the by-first index key whose entry's first item is the player's room
    #                                            (read by an action's step as player_room reads it); None: player_room only
    put_needs_held: bool               # "put X in Y" needs X held: what the heuristic may assume
    @property
    def sight(self) -> Sight | None: ...   # what a state's commands can read (see Sight); None: no such promise
    relevance_keys: bool               # a state's distance to the goals reads only its facts that name a
    #                                    relevant object (relevant_objects) or no object: Distances keys on them

    def make_parser(self, world) -> CommandParser: ...   # the parser of ``world``, this style's world
    def untie(self) -> None: ...   # World.close: empty its tables (not to be used after)
    def player_room(self, st) -> str | None: ...
    def scope(self, st) -> frozenset: ...
    def held(self, st) -> list[str]: ...
    def first_observation(self, st) -> str: ...
    def room_description(self, st) -> str: ...

    def exits(self, st, room: str) -> list[Exit]:
        """The room's ways out, in the order the room's description gives them."""
        ...

    def command_text(self, action, env: dict, st) -> str:
        """How a player would type this grounded action (plans are shown and replayed as commands)."""
        ...

    def heuristic(self, goals) -> Callable | None:
        """An admissible estimate of the turns left for the exact planner, or None: ``h(state, enough=None)
        -> int``, where ``enough`` is the length of a plan known from the state (the estimate, which
        cannot exceed it, may stop adding once it reaches it)."""
        ...

    def relevant_objects(self, goals, st=None) -> frozenset:
        """What can matter to the goals from ``st`` (the initial state by default): the planner leaves
        the rest alone. A state's own: a goal thing shut in another box since the start needs that box."""
        ...
    def widens_relevance(self, fact: tuple, relevant: frozenset) -> bool:
        """With ``relevance_keys``: whether a state holding ``fact`` has relevant objects beyond
        ``relevant`` (a set ``relevant_objects`` made), so keys on ``relevant`` say too little."""
        ...

    def room_graph(self) -> dict[str, set[str]]: ...

    def door_exits(self) -> dict | None:
        """Doors on exits, for the heuristic's door work; None for a style without doors."""
        ...

    def room_of(self, st, x: str) -> str | None: ...
    def is_held(self, st, x: str) -> bool: ...
    def is_door(self, x: str) -> bool: ...

    def gone(self, st, x: str) -> bool:
        """Whether x is out of the game for good (eaten: no place, not held, and no action gives it one);
        a goal naming it is then out of reach, which the heuristic says at once (``DEAD``) instead of a
        search through every state to prove it."""
        ...

    def movable(self, st, x: str) -> bool:
        """Whether x can be carried (itself or what holds it): the heuristic may then bring things to it."""
        ...

    def closed_chain(self, st, x: str, include_self: bool = False) -> set: ...


def memo_by_facts(cache: dict, st, make, limit: int = 512):
    """A value that depends on the facts alone, computed once per distinct state."""
    hit = cache.get(st.key)
    if hit is None:
        hit = make(st)
        if len(cache) >= limit:
            cache.clear()
        cache[st.key] = hit
    return hit
