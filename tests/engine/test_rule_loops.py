"""Rule code writes ``exists``, ``_`` patterns and ``forall ... where`` out as loops over an index entry
(rule_source); every check and effect of the rulesets must decide exactly as the facts say.

The oracle below reads nothing but ``State.facts``: a pattern is a scan of the
facts of its predicate (and of one argument's value, where one is bound), a
quantifier tries every name the facts or the world hold. It is run on the states
a random walk meets, both the overlays a game makes and states with facts of
their own, and on random bindings of the actions' parameters.
"""

import functools
import random
from pathlib import Path

import pytest

from tui_adventure.instances import packaged
from tui_adventure.engine.facts import State
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.engine.rules.logic import parse_condition, parse_effects
from tui_adventure.engine.rules.logic_ast import (
    Add, And, Compare, Const, Count, Delete, Exists, ForEach, Forall, Not, Or, When,
)

ROOT = Path(__file__).resolve().parents[2]
_OPS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


@functools.lru_cache(maxsize=8)
def _grouped(facts: frozenset) -> dict:
    """``facts`` by predicate and length, and by those and one argument's place and value: made from
    the facts alone, not from the state's own indexes."""
    out: dict = {}
    for f in facts:
        out.setdefault((f[0], len(f)), []).append(f)
        for i, value in enumerate(f[1:]):
            out.setdefault((f[0], len(f), i, value), []).append(f)
    return out


def matches(st, pred, args, env):
    want = [None if a == "_" else env.get(a, a) for a in args]
    bound = next(((i, w) for i, w in enumerate(want) if w is not None), ())
    return [f for f in _grouped(st.facts).get((pred, len(args) + 1, *bound), ())
            if all(w is None or w == v for w, v in zip(want, f[1:]))]


def holds(c, ast, st, env, names) -> bool:
    if isinstance(ast, Const):
        return ast.value
    if isinstance(ast, Not):
        return not holds(c, ast.body, st, env, names)
    if isinstance(ast, And):
        return holds(c, ast.left, st, env, names) and holds(c, ast.right, st, env, names)
    if isinstance(ast, Or):
        return holds(c, ast.left, st, env, names) or holds(c, ast.right, st, env, names)
    if isinstance(ast, Compare):
        return _OPS[ast.op](env.get(ast.left, ast.left), env.get(ast.right, ast.right))
    if isinstance(ast, Count):
        return _OPS[ast.op](len(matches(st, ast.atom.pred, ast.atom.args, env)), ast.number)
    if isinstance(ast, (Exists, Forall)):
        values = (holds(c, ast.body, st, {**env, ast.var: v}, names) for v in names)
        return any(values) if isinstance(ast, Exists) else all(values)
    if ast.pred in c.macros:
        return holds(c, c.expand(ast), st, env, names)
    if ast.pred in c.builtins:
        return c.builtins[ast.pred](st, *[env.get(a, a) for a in ast.args])
    return bool(matches(st, ast.pred, ast.args, env))


def effect(c, ast, st, env, names, adds, dels) -> None:
    if isinstance(ast, Add):
        adds.add((ast.atom.pred, *[env.get(a, a) for a in ast.atom.args]))
    elif isinstance(ast, Delete):
        dels.update(f for f in matches(st, ast.atom.pred, ast.atom.args, env) if f in st.facts)
        if "_" not in ast.atom.args:
            dels.add((ast.atom.pred, *[env.get(a, a) for a in ast.atom.args]))
    elif isinstance(ast, When):
        if holds(c, ast.cond, st, env, names):
            effect(c, ast.effect, st, env, names, adds, dels)
    else:
        assert isinstance(ast, ForEach)
        for v in names:
            inner = {**env, ast.var: v}
            if holds(c, ast.where, st, inner, names):
                effect(c, ast.effect, st, inner, names, adds, dels)


def walk_states(world, rng, n=40):
    """States a game meets (overlays of the world's start) and the same facts as states of their own."""
    st, out = world.initial, [world.initial]
    for _ in range(n):
        room = world.style.player_room(st)
        names = list(world.entities) + ["north", "south", "east", "west", "up", "down"]
        moves = [(a, {p: rng.choice(names) for p in a.params}) for a in world.actions for _ in range(20)]
        rng.shuffle(moves)
        for action, env in moves:
            new, _text, fail = action.attempt_later(st, env)   # never rendered: odd bindings name no thing
            if fail is None and new is not st:
                st = new
                break
        else:
            continue
        out.append(st)
        assert room is not None
    return out + [State.of(s.facts) for s in out[::3]]


def same_state(got: State, want: State, before: State) -> None:
    """``got``, made by an action's step, is ``want`` (made by ``State.apply``) in facts, indexes, change
    and hash; an index entry emptied may be missing or empty."""
    assert got.facts == want.facts
    for a, b in ((got.by1, want.by1), (got.by2, want.by2)):
        assert {k: v for k, v in a.items() if v} == {k: v for k, v in b.items() if v}
    added, removed = (want.delta if want is not before else ((), ()))
    assert (set(got.delta[0]), set(got.delta[1])) == (set(added), set(removed)) if got is not before else not (added or removed)
    assert hash(got) == hash(State.of(want.facts))


WORLDS = [ROOT / "worlds" / "house.yaml", ROOT / "worlds" / "manor.yaml", "clembench"]


@pytest.mark.slow
@pytest.mark.parametrize("source", WORLDS, ids=["house", "manor", "clembench"])
def test_rule_code_decides_as_the_facts_say(source):
    world = packaged.world(packaged.names()[0]) if source == "clembench" else load_world(source)
    c = world.compiler
    rng = random.Random(7)
    states = walk_states(world, rng)
    checked = stepped = 0
    for st in states:
        names = sorted({x for f in st.facts for x in f[1:]} | set(world.entities))
        for action in world.actions:
            for _ in range(6):
                env = {p: rng.choice(names) for p in action.params}
                if action.params and rng.random() < 0.5:   # a binding that fits the facts more often
                    f = rng.choice(sorted(st.facts))
                    env[rng.choice(action.params)] = f[-1]
                env["here"] = world.style.player_room(st)
                for i, (cond, _render, _type, _names) in enumerate(action.checks):
                    ast = parse_condition(action.spec.checks[i][0])
                    assert cond(st, dict(env)) == holds(c, ast, st, env, names), (action.id, i, env)
                    checked += 1
                expect = next((i for i, chk in enumerate(action.spec.checks)
                               if not holds(c, parse_condition(chk[0]), st, env, names)), -1)
                new, text, fail = action.attempt_later(st, dict(env))   # checks, effects and memo in one call
                if expect >= 0:
                    assert new is st and fail == action.checks[expect][2], (action.id, env)
                    assert text.render is action.checks[expect][1], (action.id, env)
                    continue
                assert fail is None and text.render is action.success, (action.id, env)
                if action.effect is not None:
                    adds, dels, want_adds, want_dels = set(), set(), set(), set()
                    action.effect(st, dict(env), adds, dels)
                    for text in action.spec.effects:
                        for ast in parse_effects(text):
                            effect(c, ast, st, env, names, want_adds, want_dels)
                    assert adds == want_adds and dels & st.facts == want_dels & st.facts, (action.id, env)
                    same_state(new, st.apply(want_adds, want_dels), st)
                    stepped += 1
                else:
                    assert new is st
    assert checked > 500 and len(states) > 25 and stepped > 10
