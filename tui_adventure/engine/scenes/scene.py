"""Scenes: what happens in a world besides the player's own moves.

Characters who act by rules and walk their routes, random tables, timed
events and ways to lose are all data, run after every turn. Everything a
scene does is a change of facts, and everything it remembers is a fact: the
turn (``clock(N)``, kept only when something is timed), which one-off events
have fired (``fired(ID)``), how many entries each table has given
(``drawn(TABLE, K)``) and a loss (``lost(I)``). The K-th draw of a table is a
function of the world's seed, the table and K alone, so a seed fixes every
draw and a state fixes everything that follows it: the planner searches
scene worlds exactly, for the given seed, with the same successor function
the game uses.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, field
from typing import Any

from ..facts import State
from ..parts import WorldPart
from ..text import compile_template

CLOCK, FIRED, DRAWN, LOST, ACTIVE = "clock", "fired", "drawn", "lost", "active"
SCENE_PREDICATES = frozenset({CLOCK, FIRED, DRAWN, LOST, ACTIVE})
SPOKEN_TO = ("talk", "ask", "give")   # the player's actions that turn to a character (a voiced one answers)


@dataclass(frozen=True)
class Table:
    id: str
    entries: tuple[str, ...]
    replace: bool = True      # False: draws without replacement (each entry once, then the table is empty)


@dataclass(frozen=True)
class Happening:
    """An event (``events:``) or a character's rule: when it is due, its effects and what is said."""

    id: str
    effects: tuple[str, ...] = ()
    message: str = ""
    at: int | None = None                  # on turn N
    every: int | None = None               # on every K-th turn
    when: str | None = None                # while (or, with once, when first) this condition holds
    after: tuple[str, ...] = ()            # right after a player action of these ids naming the character
    character: str | None = None
    once: bool = True
    draws: tuple[tuple[str, str], ...] = ()   # (table, variable): an entry drawn per firing, bound for effects
    tool: bool = False                     # a voiced character's tool: done only when its model calls it
    description: str = ""                  # a tool's description, as its model reads it

    @property
    def timed(self) -> bool:
        return self.at is not None or self.every is not None


@dataclass(frozen=True)
class Character:
    id: str
    persona: tuple[str, ...] = ()
    goal: str = ""
    traits: tuple[str, ...] = ()
    flaws: tuple[str, ...] = ()
    greeting: str = ""
    topics: dict = field(default_factory=dict)     # topic word -> answer
    route: tuple[str, ...] = ()                    # rooms walked one a turn, round and round
    voice: str | None = None                       # a model (registry name) speaks for them and calls their tools


@dataclass(frozen=True)
class Loss:
    when: str
    message: str


@dataclass
class SceneSpec:
    tables: dict[str, Table] = field(default_factory=dict)
    happenings: list[Happening] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    characters: dict[str, Character] = field(default_factory=dict)
    players: tuple[str, ...] = ()    # several players, in turn order; the first plays first (none: one player)

    @property
    def clocked(self) -> bool:
        """The turn number is part of the state only when something depends on it."""
        return any(h.timed for h in self.happenings) or any(c.route for c in self.characters.values())

    def initial_facts(self) -> list[tuple]:
        return ([(CLOCK, "0")] if self.clocked else []) + ([(ACTIVE, self.players[0])] if self.players else [])

    def clock_after(self, turn: int) -> int:
        """The clock kept for turn ``turn``: the turn itself until the last ``at:``, then the same value
        modulo every ``every:`` and route length, so the planner's states stay finite (turns the scene
        cannot tell apart are one state)."""
        horizon = max((h.at for h in self.happenings if h.at is not None), default=0)
        period = 1
        for k in [h.every for h in self.happenings if h.every] + [len(c.route) for c in self.characters.values() if c.route]:
            period = period * k // math.gcd(period, k)
        if turn <= horizon + period:
            return turn
        return horizon + 1 + (turn - horizon - 1) % period


@dataclass
class Aftermath:
    """What the scene did after one turn: the new state, lines to show, a log for the records, a loss."""

    state: State
    lines: list[str]
    log: list[dict]
    lost: str | None = None


class Scene(WorldPart):
    """A ``SceneSpec`` compiled against its world."""

    def __init__(self, spec: SceneSpec, world) -> None:
        self.spec = spec
        self.part_of(world)
        self.style = world.style
        self.seed = world.seed
        compiler = world.compiler
        self.compiled = []
        for h in spec.happenings:
            bound = frozenset({"here"} | {var for _t, var in h.draws})
            self.compiled.append((
                h,
                compiler.condition(h.when, bound) if h.when else None,
                compiler.effects(list(h.effects), bound) if h.effects else None,
                compile_template(h.message, world.name_of, world.type_of, world.functions, set(bound))
                if h.message else None))
        self.losses = [(compiler.condition(loss.when, frozenset({"here"})),
                        compile_template(loss.message, world.name_of, world.type_of, world.functions,
                                         {"here"})) for loss in spec.losses]
        self.routes = [(c.id, c.route) for c in spec.characters.values() if c.route]
        self._orders: dict[str, list[int]] = {}

    # -- draws ------------------------------------------------------------------------------
    def entry(self, table: str, k: int) -> str | None:
        """The table's K-th draw (0-based) for this world's seed; None when a table without replacement is spent."""
        t = self.spec.tables[table]
        digest = hashlib.sha256(f"{self.seed}\0{table}".encode()).digest()
        if t.replace:
            pick = hashlib.sha256(digest + k.to_bytes(8, "little")).digest()
            return t.entries[int.from_bytes(pick[:8], "little") % len(t.entries)]
        order = self._orders.get(table)
        if order is None:
            order = list(range(len(t.entries)))
            random.Random(digest).shuffle(order)
            self._orders[table] = order
        return t.entries[order[k]] if k < len(order) else None

    # -- one turn ---------------------------------------------------------------------------
    def after_turn(self, st: State, action: str | None = None, args: dict | None = None,
                   turn_number: int | None = None) -> Aftermath:
        """The scene's turn after the player's: the clock, routes, due events and rules, then losses.
        ``turn_number`` is the true turn, for the log (the clock may have wrapped)."""
        style = self.style
        facts = set(st.facts)
        lines: list[str] = []
        log: list[dict] = []
        turn = None
        if self.spec.clocked:
            now = next((f for f in facts if f[0] == CLOCK), (CLOCK, "0"))
            turn = self.spec.clock_after(int(now[1]) + 1)
            facts.discard(now)
            facts.add((CLOCK, str(turn)))
        for cid, route in self.routes:
            assert turn is not None   # a route makes the scene clocked (SceneSpec.clocked)
            room = route[turn % len(route)]
            old = {f for f in facts if f[0] == "at" and f[1] == cid}
            if old != {("at", cid, room)}:
                facts -= old
                facts.add(("at", cid, room))
                log.append({"character": cid, "function": "move", "arguments": {"to": room}})
        named = set(_flat((args or {}).values()))
        base = st.facts
        cached: list = [None, None]   # (facts as they were, the state they make): rebuilt only after a change

        def now_of() -> State:
            # a state read through ``st`` with the difference laid over it: the planner asks this of every
            # successor, and building a whole State of the facts cost half of a two-seat oracle's time
            if cached[0] != facts:
                frozen = frozenset(facts)
                cached[0], cached[1] = frozen, st if frozen == base else st.apply(frozen - base, base - frozen)
            return cached[1]

        for h, cond, effect, render in self.compiled:
            if h.tool or h.once and (FIRED, h.id) in facts:
                continue
            if h.at is not None and turn != h.at or h.every is not None and (turn is None or turn % h.every):
                continue
            if h.after and (action not in h.after or h.character not in named):
                continue
            now_state = now_of()
            env = {"here": style.player_room(now_state)}
            if cond is not None and not cond(now_state, env):
                continue
            self._fire(h, effect, render, st, now_state, facts, env, lines, log,
                       {"turn": turn_number or turn, **({"after": action} if h.after else {})})
        lost = None
        now_state = now_of()
        env = {"here": style.player_room(now_state)}
        for i, (cond, render) in enumerate(self.losses):   # checked for the player who just moved
            if cond(now_state, env):
                lost = render(now_state, env)
                facts.add((LOST, str(i)))
                log.append({"function": "lose", "arguments": {"condition": self.spec.losses[i].when},
                            "results": {"said": lost}})
                break
        if self.spec.players and lost is None:
            lines.append(self._rotate(facts))
        new = st if facts == st.facts else st.apply(facts - st.facts, st.facts - facts)
        return Aftermath(new, lines, log, lost)

    def _fire(self, h: Happening, effect, render, st: State, now: State, facts: set, env: dict, lines: list,
              log: list, arguments: dict) -> bool:
        """Do one happening to ``facts`` (``now`` is the state they make): its draws, effects and line;
        False when a table it draws from is spent."""
        drawn = {}
        for table, var in h.draws:
            counter = next((f for f in facts if f[0] == DRAWN and f[1] == table), (DRAWN, table, "0"))
            k = int(counter[2])
            value = self.entry(table, k)
            if value is None:
                return False
            facts.discard(counter)
            facts.add((DRAWN, table, str(k + 1)))
            env[var] = drawn[var] = value
        adds: set = set()
        dels: set = set()
        if effect is not None:
            effect(now, env, adds, dels)
        facts -= dels
        facts |= adds
        if h.once:
            facts.add((FIRED, h.id))
        text = render(State.of(facts), env) if render is not None else ""
        if text:
            lines.append(text)
        log.append({**({"character": h.character} if h.character else {}), "function": h.id,
                    "arguments": arguments, "intermediate_results": {"draws": drawn} if drawn else {},
                    "results": {"added": sorted(map(list, adds - st.facts)),
                                "removed": sorted(map(list, dels & st.facts)), "said": text}})
        return True

    def tools_of(self, character: str) -> list[Happening]:
        """What a voiced character may do, offered to its model as tools."""
        return [h for h in self.spec.happenings if h.tool and h.character == character]

    def call(self, st: State, character: str, tool: str, turn_number: int | None = None) -> Aftermath:
        """A voiced character's model calls one of its tools: done when the tool's condition holds.
        The log says what was asked and what came of it (refused, and why, or the changes), so a
        model game master's calls can be checked against the state it was in."""
        entry = next(((h, cond, effect, render) for h, cond, effect, render in self.compiled
                      if h.tool and h.character == character and h.id == tool), None)
        asked: dict[str, Any] = {"character": character, "function": tool, "arguments": {"turn": turn_number, "by": "voice"}}
        if entry is None:
            known = ", ".join(h.id for h in self.tools_of(character)) or "none"
            return Aftermath(st, [], [asked | {"results": {"refused": f"no such tool (tools: {known})"}}])
        h, cond, effect, render = entry
        if h.once and (FIRED, h.id) in st.facts:
            return Aftermath(st, [], [asked | {"results": {"refused": "already done (once)"}}])
        env = {"here": self.style.player_room(st)}
        if cond is not None and not cond(st, env):
            return Aftermath(st, [], [asked | {"results": {"refused": f"its condition does not hold: {h.when}"}}])
        facts = set(st.facts)
        lines: list[str] = []
        log: list[dict] = []
        if not self._fire(h, effect, render, st, st, facts, env, lines, log, asked["arguments"]):
            return Aftermath(st, [], [asked | {"results": {"refused": "its table is spent"}}])
        new = st if facts == st.facts else st.apply(facts - st.facts, st.facts - facts)
        return Aftermath(new, lines, log)

    def cooperative_voices(self, st: State, action: str, args: dict) -> State:
        """What the planner assumes of voiced characters (a model it cannot foresee): a cooperative
        voice, that calls each of its tools as soon as it is spoken to and the tool's condition holds.
        Par is then the best a player can do with a helpful character."""
        if action not in SPOKEN_TO:
            return st
        named = set(_flat(args.values()))
        for c in self.spec.characters.values():
            if c.voice and c.id in named:
                for h in self.tools_of(c.id):
                    st = self.call(st, c.id, h.id).state
        return st

    def _rotate(self, facts: set) -> str:
        """The next player's turn. The rules speak of ``player`` (``at(player, R)``, ``held(X)``), so the
        player whose turn it is is ``player`` in the state and the others are themselves (``at(ID, R)``,
        ``held_by(X, ID)``): one ruleset serves any number of players, and a state says whose turn it is."""
        order = self.spec.players
        now = next(f[1] for f in facts if f[0] == ACTIVE)
        nxt = order[(order.index(now) + 1) % len(order)]
        for f in list(facts):
            if f[0] == "at" and f[1] == "player":
                facts.discard(f)
                facts.add(("at", now, f[2]))
            elif f[0] == "held":
                facts.discard(f)
                facts.add(("held_by", f[1], now))
        for f in list(facts):
            if f[0] == "at" and f[1] == nxt:
                facts.discard(f)
                facts.add(("at", "player", f[2]))
            elif f[0] == "held_by" and f[2] == nxt:
                facts.discard(f)
                facts.add(("held", f[1]))
        facts.discard((ACTIVE, now))
        facts.add((ACTIVE, nxt))
        return f"It is now {self.name_of(nxt).title()}'s turn."

    def active(self, st: State) -> str | None:
        """Whose turn it is (None in a one-player world)."""
        return next((f[1] for f in st.facts if f[0] == ACTIVE), None)

    def advance(self, before: State, after: State, action: str, args: dict) -> State | None:
        """The planner's successor: the state after the move and the scene's turn (its delta against
        ``before``), or None when the move loses."""
        out = self.after_turn(after, action, args)
        if out.lost is not None:
            return None
        st = self.cooperative_voices(out.state, action, args)
        if st is after:
            return after
        return before.apply(st.facts - before.facts, before.facts - st.facts)

    def changed_predicates(self) -> frozenset[str]:
        """Predicates the scene may change (for the planner's packing of states)."""
        from ..rules import Add, Delete, parse_effects, walk_all

        out = set(SCENE_PREDICATES)
        if self.routes:
            out.add("at")
        if self.spec.players:
            out |= {"at", "held", "held_by"}
        for h in self.spec.happenings:
            for text in h.effects:
                out.update(n.atom.pred for n, _ in walk_all(parse_effects(str(text))) if isinstance(n, (Add, Delete)))
        return frozenset(out)


def _flat(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from v
        else:
            yield v
