"""What the player has come to know: upstream's ``exploration_info`` of every turn.

Known entities are the ``at`` facts of everything the player has seen (with
the place it was last seen), visited rooms the rooms entered so far, known
goal entities the known entities that a goal names. ``effective epistemic
gain`` is the set of facts about the current room that were new to the
player this turn.
"""

from __future__ import annotations

EPISTEMIC = {"open", "go", "examine"}
PRAGMATIC = {"open", "take", "put", "go", "done"}


class Exploration:
    def __init__(self, world) -> None:
        self.world = world
        style = world.style
        self.player_room = style.player_room
        self.entities = [e.id for e in world.entities.values() if e.kind in ("object", "player")
                         and e.id != "inventory"]
        self.goal_entities = {a for g in world.goals for a in g.fact[1:] if a in world.entities
                              and world.entities[a].kind != "room"}
        self.rooms = world.rooms()
        self.known: dict[str, str] = {}          # entity -> room it was last seen in
        self.visited: list[str] = []
        self.seen_facts: set = set()

    def _visible(self, st) -> tuple[str, list[str]]:
        room = self.player_room(st)
        if not self.world.is_clembench():
            return room, self.world.sort_ids(self.world.style.scope(st))
        here = [x for x in self.world.sort_ids(st.by2.get(("at", room), ()))
                if ("accessible", x) in st.facts or x == "player1" or self.world.entities[x].kind == "player"]
        return room, here

    def observe(self, st, initial: bool = False) -> set:
        room, here = self._visible(st)
        if room not in self.visited:
            self.visited.append(room)
        for x in here:
            self.known[x] = room
        facts = {f for f in st.facts if len(f) == 3 and f[0] in ("at", "on", "in", "exit")
                 and (f[1] in here or f[1] == room)}
        gained = facts - self.seen_facts
        self.seen_facts |= facts
        return gained

    def after_step(self, st, result) -> dict:
        gained = self.observe(st)
        action = result.action or ""
        known = [["at", x, r] for x, r in self.known.items()]
        known_goal = [k for k in known if k[1] in self.goal_entities]
        info = {
            "action_epistemic": action in EPISTEMIC and result.fail is None,
            "action_pragmatic": action in PRAGMATIC and result.fail is None,
        }
        if gained and result.fail is None and action in EPISTEMIC:
            info["effective_epistemic_gain_facts"] = [list(f) for f in sorted(gained)]
            info["effective_epistemic_gain_amount"] = len(gained)
        else:
            info["effective_epistemic_gain_amount"] = 0
        info.update({
            "known_entities": known,
            "known_entities_ratio": len(known) / len(self.entities) if self.entities else 0,
            "visited_rooms": list(self.visited),
            "visited_rooms_ratio": len(self.visited) / len(self.rooms) if self.rooms else 0,
            "known_goal_entities": known_goal,
            "known_goal_entities_ratio": len(known_goal) / len(self.goal_entities) if self.goal_entities else 0,
        })
        return info
