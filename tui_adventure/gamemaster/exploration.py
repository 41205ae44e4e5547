"""What upstream's interpreter reports besides its text, for the records.

clembench's game master logs, for every command, an ``exploration_info``
(what the player has come to know), an ``arg`` for every failure, and the
goals the interpreter believes achieved. The engine has no use for any of
it, so it is rebuilt here from the engine's states, following upstream's
bookkeeping exactly, quirks included, because scores are computed from it:

- The exploration state grows by what the player perceives after every
  command (failed ones too) and loses what an action's effects delete; a copy
  goes into a history after every command. Gain is measured against the
  history entry before this command's, rooms visited over the whole history.
- After a failed command the interpreter reports the goals of its last
  *successful* command as ``[pred, a, b]`` lists, not strings.
- A plan is simulated on the live interpreter: the simulated goals stay
  behind, and when a plan fails after k >= 1 successes the history is cut by
  k although k + 1 entries were added (upstream's off-by-one), so the
  exploration state of the first simulated success survives.

Native (non-clembench) worlds get the same bookkeeping over their own facts,
without those quirks.
"""

from __future__ import annotations

from ..instances.feedback import INVENTORY, PLAYER, itemcount

# (epistemic, pragmatic) of upstream's action definitions (basic_actions_v2*.json)
CLEM_FLAGS = {"open": (True, True), "close": (False, False), "take": (False, True), "put": (False, True),
              "go": (True, True), "done": (False, True), "examine": (True, False)}
NATIVE_EPISTEMIC = {"look", "inventory", "examine", "go", "go_to", "open", "unlock"}
NATIVE_NOT_PRAGMATIC = {"close", "lock", "wait"}
PERCEIVED_PREDICATES = ("open", "closed", "at", "in", "on")
NATIVE_PREDICATES = PERCEIVED_PREDICATES + ("held", "locked")


def _as_list(fact) -> list:
    return list(fact)


def _order(fact) -> tuple:
    return tuple(str(x) for x in fact)


class Exploration:
    """Upstream's exploration state and history (``track_exploration`` / ``get_exploration_info``)."""

    def __init__(self, world, state) -> None:
        self.world = world
        self.clembench = world.is_clembench()
        initial = world.initial.facts
        if self.clembench:
            self.player = PLAYER
            self.counted = world.ruleset.name.endswith("invlimit")   # the domain with itemcount
            self.entity_count = sum(1 for f in initial if f[0] == "type")
            self.room_count = sum(1 for f in initial if f[0] == "room")
            self.located: tuple[str, ...] = ("at",)
        else:
            self.player = "player"
            self.counted = False
            self.entity_count = sum(1 for e in world.entities.values() if e.kind in ("object", "player")
                                    and not e.hidden) or 1
            self.room_count = len(world.rooms()) or 1
            self.located = ("at", "in", "on", "held")
        self.goal_args = {a for g in world.goals for a in g.fact[1:]}
        self.state: frozenset = self.perceived(state)
        self.history: list[frozenset] = [self.state]

    # -- what the player perceives ------------------------------------------------
    def perceived(self, st) -> frozenset:
        return self._perceived_clem(st) if self.clembench else self._perceived_native(st)

    def _perceived_clem(self, st) -> frozenset:
        # Read through the state's own lookups (rest, firsts, in): a step's state is an overlay of
        # its base, and asking for its whole facts or indexes would build them every turn.
        room = self.world.style.player_room(st)
        out = {("at", PLAYER, r) for (r,) in st.rest("at", PLAYER)}
        visible = set()
        for x in st.firsts("at", room):
            if x == PLAYER or self.world.entities.get(x) is None or self.world.entities[x].hidden:
                continue
            holders = st.rest("in", x)
            if holders and not any(("open", c) in st for (c,) in holders):
                continue        # in a closed container or in the inventory
            visible.add(x)
        # The facts about what is seen or held and the room's exits, read off the index by first
        # argument rather than by scanning every fact of the world each turn.
        for preds, xs in ((PERCEIVED_PREDICATES, visible), (("at", "in"), st.firsts("in", INVENTORY)),
                          (("exit",), (room,))):
            for x in xs:
                for pred in preds:
                    for rest in st.rest(pred, x):
                        out.add((pred, x, *rest))
        if self.counted:
            out.add(self.itemcount(st))
        return frozenset(out)

    def _perceived_native(self, st) -> frozenset:
        style = self.world.style
        room = style.player_room(st)
        scope = style.scope(st)
        out = {("at", self.player, room)}
        for f in st.facts:
            if len(f) < 2:
                continue
            if f[1] in scope and f[0] in NATIVE_PREDICATES:
                out.add(f)
            elif f[0] == "exit" and f[1] == room:
                out.add(f)
        return frozenset(out)

    itemcount = staticmethod(itemcount)

    # -- bookkeeping ----------------------------------------------------------------
    def track(self, st, removed=()) -> None:
        """After a command: add what is newly perceived, drop what the action deleted, keep a copy."""
        state = self.state | (self.perceived(st) - self.history[-1])
        if removed:
            state = state - frozenset(removed)
        self.state = state
        self.history.append(state)

    def info(self, action_type: str | None) -> dict:
        """``exploration_info`` for the last command; ``action_type`` None for a parsing failure."""
        epistemic, pragmatic = self.flags(action_type)
        out: dict = {"action_epistemic": epistemic, "action_pragmatic": pragmatic}
        if epistemic:
            gain = sorted(self.state - self.history[-2], key=_order)
            out["effective_epistemic_gain_facts"] = [_as_list(f) for f in gain]
            out["effective_epistemic_gain_amount"] = len(gain)
        else:
            out["effective_epistemic_gain_amount"] = 0
        known = sorted((f for f in self.state if f[0] in self.located), key=_order)
        out["known_entities"] = [_as_list(f) for f in known]
        out["known_entities_ratio"] = len(known) / self.entity_count
        player = self.player
        rooms = {f[2] for entry in self.history for f in entry if f[0] == "at" and f[1] == player and len(f) == 3}
        out["visited_rooms"] = sorted(rooms)
        out["visited_rooms_ratio"] = len(rooms) / self.room_count
        known_goal = [f for f in known if f[1] in self.goal_args]
        out["known_goal_entities"] = [_as_list(f) for f in known_goal]
        out["known_goal_entities_ratio"] = len(known_goal) / len(self.goal_args) if self.goal_args else 0
        return out

    def flags(self, action_type: str | None) -> tuple[bool, bool]:
        if action_type is None:
            return False, False
        if self.clembench:
            return CLEM_FLAGS.get(action_type, (False, False))
        action = self.world.action_by_id.get(action_type)
        info = bool(action is not None and action.info)
        return (info or action_type in NATIVE_EPISTEMIC,
                not info and action_type not in NATIVE_NOT_PRAGMATIC)

    def snapshot(self) -> tuple:
        return self.state, tuple(self.history)

    def restore(self, snap: tuple) -> None:
        self.state, history = snap
        self.history = list(history)
