"""A loaded world: its entities and names, its initial facts and goals, its compiled rules.

A World is built once (from a YAML file, or from a clembench instance) and is
then read-only: games, planners and front ends share it freely.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from sys import intern
from typing import Any

from .facts import Fact, State, format_fact, pairs
from .rules import Compiler, Action, ActionSpec, RulesetSpec, compile_actions
from .rules.logic import Memo


@dataclass
class Entity:
    id: str
    name: str
    kind: str = "object"          # "object" | "room" | "player"
    adjectives: tuple[str, ...] = ()
    synonyms: tuple[str, ...] = ()
    description: str = ""
    type: str = ""                # clembench type name ("sidetable"); the id when none
    hidden: bool = False          # never named by the player (floors, the inventory)
    article: str | None = None    # "some", "the"; None: a / an

    def words(self) -> frozenset[str]:
        out = set(self.name.split()) | set(self.adjectives)
        for s in self.synonyms:
            out.update(s.split())
        return frozenset(out)

    def nouns(self) -> frozenset[str]:
        """Words that may end a noun phrase naming this entity."""
        out = {self.name.split()[-1]} if self.name else set()
        out.update(s.split()[-1] for s in self.synonyms if s)
        return frozenset(out)


@dataclass(frozen=True)
class Goal:
    fact: Fact
    positive: bool = True

    def holds(self, st: State) -> bool:
        return st.has(self.fact) == self.positive

    def __str__(self) -> str:
        return _goal_text(self.fact, self.positive)


_GOAL_TEXT: dict = {}
_FACTS: dict = {}   # a fact -> the same fact of interned names (one tuple for every world that states it)
MAX_FACTS = 100_000


def _interned(fact: Fact) -> Fact:
    out = tuple(map(intern, fact))
    if len(_FACTS) >= MAX_FACTS:
        _FACTS.clear()
    _FACTS[out] = out
    return out


def _goal_text(fact: Fact, positive: bool) -> str:
    key = (fact, positive)
    text = _GOAL_TEXT.get(key)
    if text is None:
        text = format_fact(fact) if positive else f"not {format_fact(fact)}"
        if len(_GOAL_TEXT) >= MAX_FACTS // 2:
            _GOAL_TEXT.clear()
        _GOAL_TEXT[key] = text
    return text


def _namers(entities: dict, order: dict) -> tuple:
    """A world's ``name_of``, ``type_of`` and ``sort_ids``: functions of its entities and their order
    alone, which its actions, style and parser keep."""
    get = entities.get
    rank = order.get

    def name_of(eid: str) -> str:
        ent = get(eid)
        return ent.name if ent else str(eid)

    def type_of(eid: str) -> str:
        ent = get(eid)
        return (ent.type or ent.id) if ent else str(eid)

    def sort_ids(ids) -> list[str]:
        return sorted(ids, key=lambda i: rank(i, 1 << 30))
    return name_of, type_of, sort_ids


@dataclass
class World:
    path: str
    game: str
    title: str
    ruleset: RulesetSpec
    start: str
    entities: dict[str, Entity]
    initial_facts: list[Fact]
    goals: list[Goal]
    max_turns: int = 100
    par: int | None = None
    intro: str = ""
    extra_actions: list[ActionSpec] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)   # e.g. the original clembench instance
    strict: bool = False
    seed: int = 0
    scene_spec: Any = None   # engine.scene.SceneSpec: characters, tables, events, losing (None: no scene)
    # A world made for one episode (a Gymnasium env's generate= reset): an action's messages are bound
    # to its names when first rendered, once its definition compiled in a world of its ruleset and shape.
    lazy: bool = False

    def __post_init__(self) -> None:
        from .styles import make_style

        # One string object per name: a fact lookup then compares names by identity, and a fresh game
        # touches one copy of each name (a step's cost is mostly memory it has not touched yet).
        # (a fact met in an earlier world is that world's tuple: generated worlds of one theme share most)
        known = _FACTS.get
        self.initial_facts = [known(f) or _interned(f) for f in self.initial_facts]
        self.goals = [Goal(known(g.fact) or _interned(g.fact), g.positive) for g in self.goals]
        for ent in list(self.entities.values()):
            ent.id = intern(ent.id)
        self.entities = {intern(eid): ent for eid, ent in self.entities.items()}
        self.order = {eid: i for i, eid in enumerate(self.entities)}
        self.name_of, self.type_of, self.sort_ids = _namers(self.entities, self.order)
        self.initial = State.of(self.initial_facts)
        hash(self.initial), hash(self.initial.facts)   # what a game's first steps key memos on: hashed at load
        pairs(self.initial)   # the index an action's step reads exits by (facts.pairs), made at load as by1 and by2 are
        # What every game of the world starts from, worked out once: a game's goal bookkeeping
        self.goal_facts = frozenset(g.fact for g in self.goals)   # a step touching none of these changes no goal
        self.goal_rows = tuple((g, g.fact, g.positive, str(g)) for g in self.goals)
        self.initial_achieved = frozenset(g for g in self.goals if g.holds(self.initial))
        self.initial_achieved_text = sorted(str(g) for g in self.initial_achieved)
        self.style = make_style(self.ruleset.style, self)
        compiler = Compiler(builtins=self.style.builtins, macros=self.ruleset.macros,
                            domain=tuple(self.entities), tables=self.ruleset.tables)
        self.compiler = compiler
        functions = self.style.functions
        if self.scene_spec is not None:   # what characters say, for the scene's own actions
            from .scenes import scene_functions

            functions = {**functions, **scene_functions(self.scene_spec, self.entities, self.name_of)}
        self.functions = functions   # the text functions its messages may call
        self.actions: list[Action] = compile_actions(
            self.ruleset.actions + self.extra_actions, compiler, self.name_of, self.type_of,
            functions, self.initial, self.style.player_room, self.style.player_at, lazy=self.lazy)
        self.action_by_id = {a.id: a for a in self.actions}
        self.parser = self.style.make_parser(self)
        self.scene = None
        self.closed = False   # close() lets go of the parts below once
        if self.scene_spec is not None:
            from .scenes import Scene

            self.scene = Scene(self.scene_spec, self)

    def close(self) -> None:
        """Let go of what this world made, for the one that made it and is done with it (the Gymnasium
        env closes the worlds its ``generate=`` resets drew): the memos in its states' caches are
        emptied and its style, parser, scene, compiler and actions let go, so its memory comes back at
        once rather than at Python's next cyclic collection. The world is not to be played after."""
        if self.closed:
            return
        self.closed = True
        actions = self.actions
        if actions:   # one memo a world, shared by its actions: the state caches its steps wrote to
            memo = actions[0].memo
            for cache in memo:
                cache.clear()
            memo.clear()
        self.initial.cache.clear()
        self.style.untie()
        del self.style, self.parser, self.scene, self.compiler
        self.actions, self.action_by_id = [], {}

    def keep_memos(self, transitions: int) -> None:
        """Let the actions' memos in the states' caches grow to ``transitions`` before they are emptied
        (never below their default): for a caller that meets the same states again and again and keeps
        them (``agents.env`` with the admissible commands)."""
        if self.actions:
            memo = self.actions[0].memo   # one per world, shared by its actions
            if isinstance(memo, Memo):
                memo.limit = max(memo.limit, transitions)

    # names -----------------------------------------------------------
    # name_of(eid), type_of(eid), sort_ids(ids): set at load (_namers)

    def rooms(self) -> list[str]:
        return [e.id for e in self.entities.values() if e.kind == "room"]

    def objects(self) -> frozenset[str]:
        return frozenset(e.id for e in self.entities.values() if e.kind == "object")

    def goals_achieved(self, st: State) -> list[Goal]:
        return [g for g in self.goals if g.holds(st)]

    def is_clembench(self) -> bool:
        return self.ruleset.style == "clembench"
