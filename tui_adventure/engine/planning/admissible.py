"""Admissible commands memoised on the state, and a new state's worked out from the state before it.

A random agent that reads the admissible commands every step asks for a few
thousand states over and over (a 6-room world's walks return to the same
states ninety-odd times in a hundred), so the answer is kept per state, by
the facts (equal states made along different walks share it). The state a
memo first met is handed back as the canonical one: a caller that plays on
from it (the Gymnasium environment) then meets the same state objects again,
and every action's own memo in the state's cache (``Action.attempt_later``)
answers its next steps too.

A state not met before whose surroundings were met (the player's room, what
is in sight, the facts naming them: ``sight.LocalView``, when the rules are
proved to read nothing else) takes their commands. One whose surroundings are
new is worked out from the state looked up before it (the env's last state,
one step away) when the style promises what its texts and builtins read
(``Sight.builtin_reads``): an action whose rules read none of the facts the
step changed (``touches``) keeps its commands. Else they are worked out
as the plain definition in tests/reference.py does, with the same answer (a
test holds the two together on thousands of random states of several
worlds), but without its waste: the player's room and each kind's candidates
read once per state rather than once per action, an action that changes
nothing told by its effect's sets rather than by a successor state built and
compared, and each command's text made once.
"""

from __future__ import annotations

from typing import Sequence

from ..facts import State
from ..world import World
from .sight import local_view
from .touches import matches, read_patterns

MEMO_STATES = 50_000       # states remembered per world (a few hundred bytes each beside the state); then emptied
MAX_SCOPES = 4_096         # (room, scope) pairs whose command texts are kept; then emptied
MAX_CHANGED = 12           # facts a new state may differ from the one before by to be worked out from it
_PARTS = ("admissible parts",)   # a state's cache: its commands' parts (Admissible._work), for the next state's


class Admissible:
    """``commands(st)``: the sorted commands that change ``st`` or give information (``info``), ``done``."""

    def __init__(self, world: World, max_states: int = MEMO_STATES) -> None:
        self.world = world
        self.style = world.style
        self.max_states = max_states
        self._memo: dict[State, tuple] = {}
        self._mine = object()   # its answers' key in a state's cache (not itself: it names the world)
        self._where = world.actions[0].where if world.actions else (lambda st: None)
        # the actions that can give a command: those that end the game, change facts or tell something
        self._plan = [a for a in world.actions if a.ends or a.effect is not None or a.info]
        # what the commands can read, when the rules are proved local (engine.planning.sight): a state
        # never met whose surroundings were met before costs a key, not a grounding
        self.view = local_view(world)
        self._near: dict[tuple, tuple] = {}
        self.misses = 0     # states not met before
        self.computed = 0   # of those, the ones worked out (the rest: their surroundings were met)
        self.stepped = 0    # of those, the ones worked out from the state before (touches)
        self._prev: State | None = None   # the state looked up last
        # what each action's rules read (engine.planning.touches), when the style promises what its texts
        # and builtins read: a new state one step from the last takes the commands of the actions its
        # change leaves alone
        self._patterns = None
        kinds = sorted({k for a in self._plan for k in a.spec.params.values()})
        self._kinds = kinds
        self._action_kinds = [sorted({kinds.index(k) for k in a.spec.params.values()}) for a in self._plan]
        self._readers: dict = {}   # predicate -> (action's index, pattern) for each pattern read
        self._said: dict = {}      # (room, scope) -> (action's index, values) -> its command's text
        sight = world.style.sight
        if self.view is not None and sight is not None and sight.builtin_reads is not None:   # a view has a sight
            made = [read_patterns(world, a, sight.builtin_reads) for a in self._plan]
            patterns = [p for p in made if p is not None]
            if len(patterns) == len(made):
                self._patterns = patterns
                for i, p in enumerate(patterns):
                    for pred, got in p.items():
                        self._readers.setdefault(pred, []).extend((i, pattern) for pattern in got)

    def lookup(self, st: State) -> tuple[State, tuple[str, ...]]:
        """(the canonical state equal to ``st``, its commands); the memo learns ``st`` when new. The
        answer is also kept in the state's own cache (under this memo's token), read first."""
        mine = self._mine
        hit = st.cache.get(mine)
        if hit is not None:
            self._prev = hit[0]
            return hit
        hit = self._memo.get(st)
        if hit is None:
            self.misses += 1
            if len(self._memo) >= self.max_states:
                self._memo.clear()
                self._near.clear()
            view = self.view
            if view is None:
                self.computed += 1
                commands = self.compute(st)
            else:
                key = view.key(st)
                near = self._near.get(key)
                if near is None:
                    self.computed += 1
                    near = None if self._patterns is None else self._step_from(st)
                    if near is None:
                        near = self._work(st)
                    self._near[key] = near
                commands, parts = near
                if parts is not None:   # kept for the next state's _step_from
                    st.cache[_PARTS] = parts
            hit = self._memo[st] = (st, commands)
        elif hit[0] is not st:
            st.adopt(hit[0])
        st.cache[mine] = hit
        self._prev = hit[0]
        return hit

    def commands(self, st: State) -> list[str]:
        return list(self.lookup(st)[1])

    def compute(self, st: State) -> tuple[str, ...]:
        """What the plain definition (tests/reference.py) answers, worked out without the memo: ``_ground``'s
        bindings of one and two parameters walked in place (no binding copied), each checked for a change
        and made a command at once, and each kind's candidates (less the values a check allows at load)
        read once per state."""
        return self._work(st)[0]

    def _step_from(self, st: State):
        """``_work``'s answer for ``st`` from the state looked up before it (``touches``), or None when that
        state's parts are gone or it differs from ``st`` in the room, in what is in sight or in too much."""
        prev = self._prev
        if prev is None:
            return None
        parts = prev.cache.get(_PARTS)
        if parts is None:
            return None
        changed = _changed(prev, st)
        if changed is None or self._where(st) != self._where(prev) or self.style.scope(st) != self.style.scope(prev):
            return None
        redo = set()
        readers = self._readers
        for f in changed:
            for i, pattern in readers.get(f[0], ()):
                if i not in redo and matches(f, pattern):
                    redo.add(i)
        # each kind's candidates are compared with the state before's, for the actions kept only
        domains = self.style.domains
        values: dict = {}
        old_pools = parts[0]
        kinds = self._kinds
        for i, action_kinds in enumerate(self._action_kinds):
            if i in redo:
                continue
            for k in action_kinds:
                pool = values.get(kinds[k])
                if pool is None:
                    pool = values[kinds[k]] = domains[kinds[k]](st)
                if (pool if type(pool) is tuple else tuple(pool)) != old_pools[k]:
                    redo.add(i)
                    break
        self.stepped += 1
        return self._work(st, parts, redo, values)

    def _work(self, st: State, old=None, redo=None, values: dict | None = None):
        """(the commands, their parts: each kind's candidates, every action's commands in a row and where
        each action's end); ``old``: an earlier state's parts whose actions' commands hold here, but for
        those in ``redo``."""
        style = self.style
        text = style.command_text
        domains = style.domains
        here = self._where(st)
        if values is None:
            values = {}   # kind, or (kind, the allowed values) -> its candidates in this state, read once
        over, known = st.over, st.known   # read as State.has reads them
        texts: list = []
        ends: list = []
        add = texts.append
        # command texts by (action, values), for this room and scope, when the style promises they read
        # nothing else (Sight.builtin_reads)
        said = None
        if self._patterns is not None:
            scope = style.scope(st)
            said = self._said.get((here, scope))
            if said is None:
                if len(self._said) >= MAX_SCOPES:
                    self._said.clear()
                said = self._said[(here, scope)] = {}
        for i, action in enumerate(self._plan):
            if old is not None and i not in redo:
                texts += old[1][old[2][i - 1] if i else 0:old[2][i]]
                ends.append(len(texts))
                continue
            if action.ends:
                add(text(action, {}, st))
            else:
                env = started(action, st, here)
                if env is not None:
                    effect = action.effect
                    params = action.order
                    bindings: Sequence[dict]
                    if len(params) > 2:
                        bindings = _ground(action, st, env, domains, values)
                    elif not params:
                        bindings = (env,)
                    else:
                        bindings = _bindings(st, env, params, pools(action, st, domains, values), action.slot_checks)
                    if said is None:
                        for env in bindings:
                            if effect is None or _changes(effect, st, env, over, known):
                                add(text(action, env, st))
                    else:
                        for env in bindings:
                            if effect is None or _changes(effect, st, env, over, known):
                                k = (i, *[env[p] for p in params])
                                t = said.get(k)
                                if t is None:
                                    t = said[k] = text(action, env, st)
                                add(t)
            ends.append(len(texts))
        commands = tuple(sorted(set(texts)))
        if self._patterns is None:
            return commands, None
        kinds = []
        for kind in self._kinds:
            pool = values.get(kind)
            if pool is None:
                pool = values[kind] = domains[kind](st)
            kinds.append(pool if type(pool) is tuple else tuple(pool))
        return commands, (tuple(kinds), tuple(texts), tuple(ends))


def _changed(a: State, b: State) -> list | None:
    """The facts ``a`` and ``b`` differ by, read from their overlays when they read through one base (a
    game's steps from one state), else None; None too past ``MAX_CHANGED``."""
    base = b._base
    if base is None:
        return None
    bo = b.over
    if base is a:   # every overlay entry differs from the base
        out = list(bo)
    elif base is a._base:
        ao, known = a.over, b.known
        out = [f for f, now in bo.items() if now != (ao[f] if f in ao else f in known)]
        out += [f for f, was in ao.items() if f not in bo and was != (f in known)]
    else:
        return None
    return out if len(out) <= MAX_CHANGED else None


def _changes(effect, st: State, env: dict, over: dict, known: frozenset) -> bool:
    """Whether the effect bound by ``env`` changes ``st`` (a fact it adds that ``st`` lacks, or deletes that
    it has), told from the effect's sets without a next state made."""
    adds: set = set()
    dels: set = set()
    effect(st, env, adds, dels)
    for f in adds:
        if not (over[f] if f in over else f in known):
            return True
    for f in dels:
        if over[f] if f in over else f in known:
            return True
    return False


def started(action, st: State, here) -> dict | None:
    """The binding every grounding of ``action`` starts from (the player's room), or None when the
    action's checks on no parameter already fail here."""
    start = {"here": here}
    for cond in action.slot_checks[-1]:
        if not cond(st, start):
            return None
    return start


def pools(action, st: State, domains: dict, values: dict) -> list:
    """Each parameter's candidates in ``st``: its kind's, read once per state into ``values``, less the
    values a check allows at load (that cut kept there too)."""
    out = []
    kinds, allowed = action.spec.params, action.allowed
    for p in action.order:
        kind = kinds[p]
        ok = allowed.get(p)
        key = kind if ok is None else (kind, ok)
        pool = values.get(key)
        if pool is None:
            pool = values.get(kind)
            if pool is None:
                pool = values[kind] = domains[kind](st)
            if ok is not None:
                pool = values[key] = [v for v in pool if v in ok]
        out.append(pool)
    return out


def _bindings(st: State, env: dict, params, pools: list, slot_checks):
    """The bindings of one or two parameters that pass their checks, in grounding's order, each as ``env``
    itself filled in place (a caller that keeps one copies it)."""
    p0, checks0 = params[0], slot_checks[0]
    if len(params) == 1:
        for v in pools[0]:
            env[p0] = v
            for cond in checks0:
                if not cond(st, env):
                    break
            else:
                yield env
        return
    p1, checks1, pool1 = params[1], slot_checks[1], pools[1]
    for v in pools[0]:
        env.pop(p1, None)
        env[p0] = v
        for cond in checks0:
            if not cond(st, env):
                break
        else:
            for w in pool1:
                env[p1] = w
                for cond in checks1:
                    if not cond(st, env):
                        break
                else:
                    yield env


def _ground(action, st: State, start: dict, domains: dict, values: dict) -> list[dict]:
    """``Action.ground`` with the candidates of each kind read once per state (``values``) and the usual
    one and two parameters written as loops; the start checks are the caller's."""
    params = action.order
    if not params:
        return [dict(start)]
    if len(params) <= 2:
        return [dict(env) for env in _bindings(st, dict(start), params, pools(action, st, domains, values),
                                               action.slot_checks)]
    return action.ground(st, domains)
