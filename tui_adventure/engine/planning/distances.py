"""Exact distances to the goals, learned once per state and reused: par from every state of a walk.

A trainer reading progress after every step asks for the exact optimum from
each new state. Three things answer most of them without a search, all exact:

- every state on an optimal plan is solved by the same search (the i-th state
  of a plan of n moves is n - i from the goals), and each keeps the first move
  of its plan, so a solved state's whole plan can be followed again;
- a new state is usually one move from the last one asked about: that state's
  plan, replayed from the new one move by move (each checked as a move the
  planner's search would take, ``Planner.move``), is a plan from the new state;
  when its length equals the heuristic's lower bound (most states: the bound is
  tight on a random walk's states), it is optimal with no search at all;
- a walk's step off the plan (into a room the plan leaves behind) is one move
  from the state it came from, whose distance is known: the best move to a
  known state gives a plan too, optimal when as long as the lower bound. The
  move that took a step's change back is remembered by that change, so the
  next step of the same kind (into the living room again, from another state)
  is checked by that one move rather than by every move of the new state;
- a step that gains a turn is mostly one the last plan takes later (from a hub
  room, another errand first): that plan's moves less this one, each taken as
  soon as it can be, are a plan one shorter, and optimal when the bound says
  so;
- the lower bound is read only until it reaches the length of the plan in
  hand (it cannot exceed it), so its costlier parts are mostly left unread;
- otherwise A* runs with every known distance as a perfect estimate (a known
  state ends the search as a goal does) and the shorter of those plans as a
  ceiling (nothing that long or longer is looked at).

States are keyed on what their distance reads: in a style whose rules promise it
(``relevance_keys``), the changing facts that name a relevant object (the
planner's ``relevant``) or no object, so a random walk's states that differ only
in where the distractors lie share one answer. The relevant set only grows (a
goal thing put in a box makes the box matter); when it does, the keys made with
the smaller set no longer say enough, and what was learned is forgotten.

Without a heuristic (worlds whose own actions void it), the replay still gives
the ceiling. A world with a scene (its turn follows every move, the clock
counts) is solved state by state as before. Memory is bounded: past
``max_entries`` states the least recently asked are forgotten, and a plan whose
next state was forgotten is simply not replayed.
"""

from __future__ import annotations

from collections import OrderedDict

from ..facts import State
from .heuristic import DEAD
from .packing import changed_predicates
from .planner import Planner

UNREACHABLE = -1


class Distances:
    """``par(st)``: the exact optimum from ``st`` (None: the goals are out of reach); raises the planner's
    ``PlannerLimit`` when its search gives up."""

    def __init__(self, planner: Planner, max_entries: int = 100_000) -> None:
        self.planner = planner
        # its entries' key in a state's cache: not itself, which names its planner and so the world whose
        # states those are (a reference cycle: a world let go would wait for the collector)
        self._mine = object()
        self.max_entries = max(2, max_entries)
        self._d: OrderedDict[frozenset, int] = OrderedDict()   # facts -> distance, UNREACHABLE when none
        self._next: dict[frozenset, tuple] = {}   # facts -> (action, env, the next state's facts) of an optimal plan
        self._last: frozenset | None = None       # the last state asked about: its plan is the next one's guess
        self._incremental = planner.scene is None
        self.searches = 0   # A* searches run
        changing = changed_predicates(planner.world)
        self._keyed = (planner.relevant is not None and changing is not None
                       and planner.style.relevance_keys)
        self._changing = changing or frozenset()
        self._objects = planner.world.objects()
        self._relevant = planner.relevant
        self._keys: dict[frozenset, frozenset] = {}   # facts -> key, for states met again
        self._judged: set = set()                      # facts looked at for keys ...
        self._kept: set = set()                        # ... and those keys hold
        self._widening: set = set()                    # kept facts that make more things relevant
        self._h: dict[frozenset, int] = {}             # key -> the planner's lower bound
        self._undo: dict[tuple, tuple] = {}            # (key facts a step added, removed) -> the move back

    def __len__(self) -> int:
        return len(self._d)

    def key(self, st: State) -> frozenset:
        """What the state's distance reads: its facts, or in a style that promises it, the changing
        facts naming a relevant object or none."""
        if not self._keyed:
            return st.facts
        if st._facts is None and st._base is not None:   # a game's step: read through its base
            kept = st.cache.get(self._mine)   # (the relevant things it was made with, the key)
            if kept is not None and kept[0] is self._relevant:
                return kept[1]
            key = self._through_base(st, st._base)
            if key is not None:
                st.cache[self._mine] = (self._relevant, key)
                return key
        facts = st.facts
        key = self._keys.get(facts)
        if key is not None:
            return key
        if self.planner.relevant is not self._relevant:   # grown by a search: keys on fewer say too little
            self._forget()
        key = self._project(facts)
        if not key.isdisjoint(self._widening):
            # a goal thing put in another box makes that box matter: the relevant things grow
            planner = self.planner
            planner.relevant = planner.relevant | planner.style.relevant_objects(planner.goals, st)
            self._forget()
            key = self._project(facts)
        if len(self._keys) >= self.max_entries:
            self._keys.clear()
        self._keys[facts] = key
        return key

    def _through_base(self, st: State, through: State) -> frozenset | None:
        """The key of a state made by a game's step (``through``: its base), from its base's key and the few facts its overlay
        flips, without making its facts (a hundred-odd, each hashed again by every set operation on
        them); None when what it adds widens what is relevant (``key`` then works it out in full)."""
        base = self.key(through)
        if self.planner.relevant is not self._relevant:
            self._forget()
            base = self.key(through)
        gone: list[tuple] = []
        added: list[tuple] = []
        for f, now in st.over.items():
            (added if now else gone).append(f)
        new = [f for f in added if f not in self._judged]
        if new:
            self._judge(new)
        kept = self._kept
        added = [f for f in added if f in kept]
        key = base.difference(gone).union(added) if gone or added else base
        return key if key.isdisjoint(self._widening) else None

    def _project(self, facts: frozenset) -> frozenset:
        new = facts.difference(self._judged)
        if new:
            self._judge(new)
        return facts & self._kept

    def _judge(self, new) -> None:
        changing, objects, relevant = self._changing, self._objects, self._relevant
        widens = self.planner.style.widens_relevance
        for f in new:
            if f[0] in changing:   # a fact no action changes is the same in every state
                named = [a for a in f[1:] if a in objects]
                if not named or any(a in relevant for a in named):
                    self._kept.add(f)
                    if widens(f, relevant):
                        self._widening.add(f)
        self._judged.update(new)

    def key_after(self, st: State, key: frozenset, adds, dels) -> frozenset | None:
        """The key of the state a move makes from ``st`` (whose key is ``key``), from what the move changes
        (``Planner.changes``) without making the state; None when the move widens what is relevant."""
        if not self._keyed:
            return st.facts.symmetric_difference(adds | dels) if adds or dels else st.facts
        judged = self._judged
        new = [f for f in adds if f not in judged]
        if new:
            self._judge(new)
        kept = self._kept
        added = [f for f in adds if f in kept]
        if added and not self._widening.isdisjoint(added):
            return None
        return key.difference(dels).union(added)

    def estimate(self, st: State, enough: int | None = None) -> int:
        """The planner's lower bound, once per key: states of one key are as far from the goals, so the
        bound of one is a bound for all (searches from nearby states meet the same ones). ``enough``: a
        plan that long from ``st`` is known, so the bound, which cannot exceed it, is read only until it
        reaches it (the same value)."""
        key = self.key(st)
        h = self._h.get(key)
        if h is None:
            if len(self._h) >= self.max_entries:
                self._h.clear()
            heuristic = self.planner.h
            assert heuristic is not None   # asked only of a planner with a heuristic (``_solve``)
            h = self._h[key] = heuristic(st, enough)
        return h

    def _forget(self) -> None:
        self._relevant = self.planner.relevant
        for memo in (self._d, self._next, self._keys, self._kept, self._judged, self._widening, self._h, self._undo):
            memo.clear()
        self._last = None

    def known(self, st: State) -> int | None:
        """The distance when known (UNREACHABLE for out of reach), without searching."""
        return self._d.get(self.key(st))

    def known_after(self, st: State, adds, dels) -> int | None:
        """``known`` of the state a move from ``st`` makes, from what it changes."""
        key = self.key_after(st, self.key(st), adds, dels)
        if key is None:
            return self.known(st.apply(adds, dels))
        return self._d.get(key)

    def par(self, st: State) -> int | None:
        key = self.key(st)
        d = self._d.get(key)
        if d is not None:
            self._d.move_to_end(key)
            self._last = key
            return None if d == UNREACHABLE else d
        d = self._solve(st)
        self._last = key
        return None if d == UNREACHABLE else d

    def seen(self, key: frozenset) -> bool:
        """A state met again, its ``par`` read from a memo elsewhere with its ``key``: True when the
        distance is still known here (the state is then the last one asked about, and recently used);
        False when forgotten since: ``par`` learns it again, with the plan the next new states replay."""
        if key not in self._d:
            return False
        self._d.move_to_end(key)
        self._last = key
        return True

    # -- learning ---------------------------------------------------------------------------
    def _solve(self, st: State) -> int:
        planner = self.planner
        if not self._incremental:
            return self._search(st, None)
        # the move back to the last state, when a step of the same change was taken back before (one
        # checked move: a random walk's step away, which the bound mostly shows to be one turn longer);
        # the bound is read only as far as it can go, up to a plan's length known
        floor = None
        back = self._back(st)
        if back is not None:
            floor = self.estimate(st, back[0]) if planner.h is not None else 0
            if floor == back[0]:
                self._learn(st, back[1], back[0])
                return back[0]
        # a move to a known state first (a walk's step back, or on along a plan: most new states), its
        # moves kept for a search that follows
        replay = self._next_to_known(st) if floor is None or floor < DEAD else None
        if floor is None:
            floor = self.estimate(st, replay[0] if replay is not None else None) if planner.h is not None else 0
        if floor >= DEAD:   # out of reach for good, said by the bound itself
            self._store(self.key(st), UNREACHABLE)
            return UNREACHABLE
        # then the last state's plan: in another order when the walk took one of its later moves (a cheap
        # no when it took none), else as it was
        for other in (self._reordered, self._replay):
            if (replay is None or replay[0] > floor) and self._last is not None:
                after = other(st)
                if after is not None and (replay is None or after[0] < replay[0]):
                    replay = after
        if replay is not None and replay[0] == floor:   # as long as the lower bound: optimal
            self._learn(st, replay[1], replay[0])
            return replay[0]
        return self._search(st, replay)

    def _back(self, st: State) -> tuple[int, list] | None:
        """(length, [move]) through the move that took the same change back before, when it leads from
        ``st`` to the last state asked about; else None."""
        last = self._last
        if last is None:
            return None
        d = self._d.get(last)
        if d is None or d == UNREACHABLE:
            return None
        here = self.key(st)
        link = self._undo.get((here - last, last - here))
        if link is None:
            return None
        new = self.planner.move(st, *link)
        if new is None or self.key(new) != last:
            return None
        return d + 1, [(*link, new)]

    def _next_to_known(self, st: State) -> tuple[int, list] | None:
        """(length, [move]) of the best plan through a move to a state whose distance is known: a random
        walk's new state is mostly one move from the state it came from. A move back to the last state
        is kept for ``_back``, by the change it takes back."""
        d_of = self._d
        best = None
        here = self.key(st)
        last = self._last
        for action, env, adds, dels in self.planner.changes(st):
            key = self.key_after(st, here, adds, dels)
            if key is None:   # the relevant things grow: the state's key made again, and its neighbours' with it
                relevant = self._relevant
                key = self.key(st.apply(adds, dels))
                if self._relevant is not relevant:
                    here = self.key(st)
            if key == last and last is not None:
                if len(self._undo) >= self.max_entries:
                    self._undo.clear()
                self._undo[(here - last, last - here)] = (action, env)
            d = d_of.get(key)
            if d is not None and d != UNREACHABLE and (best is None or d + 1 < best[0]):
                best = (d + 1, [(action, env)])
        return best

    def _search(self, st: State, replay) -> int:
        self.searches += 1
        planner = self.planner
        if self._incremental:
            plan = planner.solve(st, known=self.known, below=replay[0] if replay is not None else None,
                                 estimate=self.estimate if planner.h is not None else None,
                                 known_after=self.known_after)
        else:
            plan = planner.solve(st)
        if plan is None:
            if replay is None:
                self._store(self.key(st), UNREACHABLE)
                return UNREACHABLE
            self._learn(st, replay[1], replay[0])   # nothing shorter than the replayed plan
            return replay[0]
        by_id = self.planner.world.action_by_id
        steps = [(by_id[a], env) for a, env in plan.steps]
        self._learn(st, steps, plan.par)
        return plan.par

    def _replay(self, st: State) -> tuple[int, list] | None:
        """(length, moves) of the last state's plan replayed from ``st``, or None when a move of it is not one
        the search could take from here. The replay stops early at a state whose distance is known."""
        key = self._last
        if key is None or key == self.key(st):
            return None
        move, is_goal, d_of, nxt, key_of = self.planner.move, self.planner.is_goal, self._d, self._next, self.key
        steps: list = []
        here = st
        for _ in range(len(d_of) + 1):
            if is_goal(here):
                return len(steps), steps
            known = d_of.get(key_of(here)) if steps else None
            if known is not None:
                return (len(steps) + known, steps) if known != UNREACHABLE else None
            link = nxt.get(key)
            if link is None:
                return None
            action, env, key = link
            new = move(here, action, env)
            if new is None:
                return None
            steps.append((action, env, new))
            here = new
        return None

    def _reordered(self, st: State) -> tuple[int, list] | None:
        """(length, moves) of the last state's plan done in another order from ``st``, or None.

        A walk's step that gains a turn on the last state's plan is mostly a move that plan makes later
        (from a hub room, another errand first): its moves less that one, each taken in the plan's
        order as soon as it can be taken here (in the room the plan took it in), are a plan from
        ``st`` one shorter. Every move is checked as the search would take it, so what this finds is
        a plan; it is optimal only when as long as the lower bound (``_solve`` checks)."""
        last = self._last
        if last is None:   # asked only after a first state (``_solve``)
            return None
        here_key = self.key(st)
        nxt, d_of, key_of = self._next, self._d, self.key
        change = here_key.symmetric_difference(last)
        pending: list = []
        key = last
        dropped = False
        for _ in range(len(d_of) + 1):
            link = nxt.get(key)
            if link is None:
                break
            action, env, after = link
            if not dropped and after.symmetric_difference(key) == change:
                dropped = True   # the move the walk took: done already
            else:
                pending.append((action, env))
            key = after
        if not dropped or not pending:
            return None
        planner = self.planner
        move, is_goal, where = planner.move, planner.is_goal, planner.where
        steps: list = []
        now = st
        checks = 4 * len(pending) + 8   # moves checked at most: a room of many errands must not cost n^2
        while pending:
            room = where(now)
            for i, (action, env) in enumerate(pending):   # noqa: B007  (i names the move taken, below)
                if env.get("here", room) != room:
                    continue
                checks -= 1
                if checks < 0:
                    return None
                new = move(now, action, env)
                if new is not None:
                    break
            else:
                return None
            del pending[i]
            steps.append((action, env, new))
            now = new
            if is_goal(now):
                return len(steps), steps
            known = d_of.get(key_of(now))
            if known is not None:
                return (len(steps) + known, steps) if known != UNREACHABLE else None
        return None

    def _learn(self, st: State, steps: list, par: int) -> None:
        """Distances along a plan of ``par`` moves whose ``steps`` go as far as a goal or a known state: the
        i-th state is ``par - i`` from the goals, and each keeps its move. A step is (action, binding),
        or with the state it made when a replay checked it."""
        key = self.key(st)
        self._store(key, par)
        left = par
        scene = self.planner.scene
        for step in steps:
            action, env = step[0], step[1]
            if len(step) > 2:
                st = step[2]
            else:
                before, st = st, action.successor(st, dict(env))
                if scene is not None:   # the scene's turn follows every move, as in the game
                    st = scene.advance(before, st, action.id, dict(env)) or st
            left -= 1
            nxt = self.key(st)
            self._next[key] = (action, env, nxt)
            if nxt not in self._d:
                self._store(nxt, left)
            key = nxt

    def _store(self, key: frozenset, d: int) -> None:
        self._d[key] = d
        self._d.move_to_end(key)
        while len(self._d) > self.max_entries:
            old, _ = self._d.popitem(last=False)
            self._next.pop(old, None)
