"""An admissible lower bound on the turns still needed, for the planner.

It reads the unmet goals and adds up work of distinct kinds, each of which
must still be done by at least that many different actions:
puts (one per unmet ``on``/``in`` goal), takes (objects that must be picked
up), opens (closed containers in the way, and the closed doors of the smallest
tree of doors joining the rooms to visit: ``door_tree``), other single-action
goals, and walking (the shortest relaxed tour through the rooms to visit: ``walk``).
The style answers the questions about places (``room_of``, ``is_held``, ...),
so the same bound serves the classic and the clembench rules.
"""

from __future__ import annotations

from .door_tree import DoorTree
from .walk import INF, KeyTour, TourBound, door_sides, door_weights, room_distances, spanning_bound

DEAD = 1 << 40        # h of a state whose goals are out of reach for good (a goal names a thing gone)
MAX_TOUR_TASKS = 12   # more tasks than this and the exact tour's table grows too large: spanning tree instead
LONG = 200            # a walk a door's absence makes impossible counts as this long when weighing doors
MODELLED_LOCKS = 5    # locked doors whose keys the walk bound fetches (each doubles its table at most; 3 until
                     # the key tour was cheap enough for more: 5 halves the states 42/70/6 expands)


def transport_heuristic(style, goals):
    """``h(state)`` for worlds whose actions are the ruleset's own."""
    graph = style.room_graph()
    dist = room_distances(graph)
    doors = style.door_exits()
    locked_tours: dict = {}   # the locked doors' set -> tours over the rooms joined without them
    about_locks = any(g.fact[0] in ("locked", "lockable") for g in goals)
    # walking with keys (``KeyTour``) unless a goal's own action could be an unlock or a door's open
    with_keys = bool(doors) and not about_locks and not any(
        g.fact[0] == "open" and style.is_door(g.fact[1]) for g in goals)
    key_tour = KeyTour(graph, doors) if with_keys else None
    # one table for both walks: a tour without keys is the key tour's sub-tour once every key is used
    tour = key_tour or TourBound(dist)
    key_fetches: set = set()   # the key tasks ``forced_doors`` added to this state's tasks
    weights = door_weights(graph, doors) if with_keys else {}
    sides = door_sides(graph, doors) if doors else {}
    door_tree = DoorTree(graph, doors) if doors else None
    if door_tree is not None and not door_tree.usable:
        door_tree = None
    keys_of: dict = {}
    for f in style.initial_facts:
        if f[0] == "unlocks":
            keys_of.setdefault(f[2], []).append(f[1])
    room_of, is_held, closed_chain, player_room = style.room_of, style.is_held, style.closed_chain, style.player_room
    movable, gone = style.movable, style.gone

    def h(st, enough: int | None = None) -> int:
        tasks: set = set()   # (pick-up room or None, drop-off room or None): see walk.TourBound
        takes: set = set()
        opens: set = set()
        puts = other = 0
        for g in goals:
            if g.holds(st):
                continue
            fact = g.fact
            for x in fact[1:]:   # every action binds things in sight: an unmet goal about a thing gone stays unmet
                if gone(st, x):
                    return DEAD
            pred = fact[0]
            if not g.positive:
                other += 1
                continue
            if pred in ("on", "in") and len(fact) == 3:
                x, y = fact[1], fact[2]
                puts += 1
                ry = None if is_held(st, y) else room_of(st, y)
                # a destination that can be carried may come to the thing: then no order between the two
                fixed = ry is not None and not movable(st, y)
                if ry is not None and not fixed:
                    tasks.add((ry, None))
                if not is_held(st, x):
                    rx = room_of(st, x)
                    if rx is not None:
                        tasks.add((rx, ry) if fixed else (rx, None))
                    elif fixed:
                        tasks.add((None, ry))
                    if style.put_needs_held or rx is None or rx != ry:
                        takes.add(x)
                    opens |= closed_chain(st, x)
                elif fixed:
                    tasks.add((None, ry))
                if pred == "in":
                    opens |= closed_chain(st, y, include_self=True)
            elif pred == "held":
                x = fact[1]
                takes.add(x)
                rx = room_of(st, x)
                if rx is not None:
                    tasks.add((rx, None))
                opens |= closed_chain(st, x)
            elif pred == "at" and fact[1] == "player":
                tasks.add((fact[2], None))
            elif pred == "open":
                opens.add(fact[1])
                rx = room_of(st, fact[1])
                if rx is not None and not style.is_door(fact[1]):
                    tasks.add((rx, None))
            else:
                other += 1
                if pred in ("eaten", "at") and len(fact) >= 2 and not is_held(st, fact[1]):
                    rx = room_of(st, fact[1])
                    takes.add(fact[1])
                    opens |= closed_chain(st, fact[1])
                    if pred == "at" and len(fact) == 3:
                        tasks.add((rx, fact[2]))   # carried there: picked up first
                    elif rx is not None:
                        tasks.add((rx, None))
                elif pred == "at" and len(fact) == 3:
                    tasks.add((None, fact[2]))
        here = player_room(st)
        need = {r for task in tasks for r in task if r is not None}
        key_fetches.clear()
        door_extra = 0
        if need and doors:
            work = door_work(st, here, need, takes)
            shut, unlocks, keys = forced_doors(st, here, need, takes, opens, tasks)
            if door_tree is None:
                door_extra = max(work, shut + unlocks + keys)
            else:   # the opens the tree counts, and the unlocks and keys the two counts add to theirs
                free = open_doors(st) | opens.intersection(door_ids)
                rooms = {r for task in tasks for r in task if r is not None}
                if about_locks:   # a goal's own unlock may be one of the doors': the counts as they were
                    locks = max(work - (work > 0), unlocks + keys)
                else:   # each locked door on the way costs an unlock; a key of some, a take
                    locks = door_tree(here, rooms, unlocked(st)) + max(work == 3, keys)
                door_extra = door_tree(here, rooms, free) + locks
        tasks.discard((None, None))
        base = puts + len(takes) + len(opens) + other
        if len(tasks) <= MAX_TOUR_TASKS:
            walk = tour(here, tasks)
            if enough is not None and base + door_extra + walk >= enough:   # the rest only adds
                return base + door_extra + walk
            if doors and not about_locks:
                walk = behind_locks(st, here, tasks, takes, walk)
            if with_keys and need:
                return base + max(door_extra + walk, fetching_keys(st, here, need, tasks, takes))
        else:
            walk = spanning_bound(here, need, dist)
        return base + door_extra + walk

    def fetching_keys(st, here, need, tasks, takes) -> int:
        """Door opens (the door tree's count, else some door or each on every route) plus the walk
        that fetches the keys of the locked doors it goes through, with their takes and unlocks
        (``KeyTour``). The other bound's key tasks are left out: here the keys are the walk's own
        choice. The opens are turns apart from the walk, the takes and the unlocks: they add."""
        facts = st.facts
        if door_tree is not None:
            opened = door_tree(here, need, open_doors(st))
        else:
            some = int(not need <= reach(here, frozenset(d for d in door_ids if ("open", d) in facts)))
            forced = 0
            for door, (sides_of, _) in sides.items():
                near = sides_of.get(here)
                if ("open", door) not in facts and near is not None and not need <= near:
                    forced += 1
            opened = max(some, forced)
        modelled = []
        rooms = frozenset(need)
        for door in door_ids:
            if ("locked", door) not in facts:
                continue
            ks = keys_of.get(door, ())
            if len(ks) != 1 or is_held(st, ks[0]):
                continue
            rk = room_of(st, ks[0])
            if rk is not None:
                weight = (local_weight(door, here, rooms), weights.get(door, 0))
                modelled.append((weight, door, rk, 1 + (ks[0] not in takes)))
        modelled.sort(reverse=True)
        keys = frozenset((d, rk, price) for _, d, rk, price in modelled[:MODELLED_LOCKS])
        own = {t for t in tasks if t not in key_fetches}
        if door_tree is not None:   # the tour passes the locks it does not model: each it meets, an unlock
            opened += door_tree(here, need, unlocked(st).union(d for d, _, _ in keys))
        return opened + key_tour(here, own, keys)

    between: dict = {}   # (door, rooms to visit) -> how much longer the walks among them get without it

    def local_weight(door, here, rooms: frozenset) -> int:
        """How much longer this state's walks get without the door: the locks worth modelling here
        (the whole map's weights chose locks far from the rooms left: 64/120/8 seed 3 expanded
        28,099 states with them, 3,802 with these)."""
        base_d = key_tour.distances(frozenset())
        cut = key_tour.distances(frozenset((door,)))
        among = between.get((door, rooms))
        if among is None:
            among = between[(door, rooms)] = sum(min(cut[a].get(b, INF), LONG) - base_d[a].get(b, INF)
                                                 for a in rooms for b in rooms)
        row, near = cut[here], base_d[here]
        return among + 2 * sum(min(row.get(b, INF), LONG) - near.get(b, INF) for b in rooms)

    def behind_locks(st, here, tasks, takes, walk) -> int:
        """The walk, or more: a plan either never unlocks a door (it walks the rooms joined without
        the locked ones, often the long way round) or unlocks one (an unlock and, with no key in hand,
        a take and a walk by the key's room). The cheaper of the two is still a lower bound. The
        unlock and the take are counted here only: when the first case is possible at all, the door
        counts (``door_work``, ``forced_doors``) have counted no unlock and no key."""
        facts = st.facts
        locked = frozenset(d for d in sides if ("locked", d) in facts)
        if not locked:
            return walk
        without = locked_tours.get(locked)
        if without is None:
            cut = {e for e, d in doors.items() if d in locked}
            sub = {r: {n for n in ns if (r, n) not in cut} for r, ns in graph.items()}
            without = locked_tours[locked] = TourBound(room_distances(sub))
        plain = without(here, tasks)
        if plain <= walk + 1 or plain >= INF:
            return walk if plain >= INF else plain
        best = plain
        for door in locked:
            ks = keys_of.get(door, ())
            if any(is_held(st, k) for k in ks):
                return min(best, walk + 1)
            for k in ks:
                rk = room_of(st, k)
                cost = 1 + (k not in takes) + (tour(here, tasks | {(rk, None)}) if rk is not None else walk)
                if cost < best:
                    best = cost
                    if best <= walk + 1:
                        return best
        return best

    def forced_doors(st, here, need, takes, opens, tasks) -> tuple[int, int, int]:
        """Doors on every route from here to a room to visit: each still shut costs an open, each
        locked an unlock too and, with its only key not in hand, that key's take (and the walk
        to fetch it before the far side). Adds to ``opens`` and ``tasks``. Returns the opens, the
        unlocks and the takes apart: the door trees count more opens and unlocks."""
        facts = st.facts
        keys: set = set()
        shut = unlocks = 0
        for door, (reach, edges) in sides.items():
            if ("open", door) in facts or door in opens:
                continue
            near = reach.get(here)
            if near is None or need <= near:
                continue
            shut += 1
            if ("locked", door) not in facts:
                continue
            unlocks += 1
            ks = keys_of.get(door, ())
            if len(ks) != 1 or is_held(st, ks[0]):
                continue
            k = ks[0]
            if k not in takes:
                keys.add(k)
            rk = room_of(st, k)
            if rk is not None:
                far = {b for a, b in edges if a in near and b not in near}
                fetch = (rk, far.pop() if len(far) == 1 else None)
                if fetch not in tasks:
                    key_fetches.add(fetch)
                tasks.add(fetch)
        for k in keys:
            opens |= closed_chain(st, k)
        return shut, unlocks, len(keys)

    def unlocked(st) -> frozenset:
        facts = st.facts
        return frozenset(d for d in door_ids if ("locked", d) not in facts)

    def open_doors(st) -> frozenset:
        facts = st.facts
        return frozenset(d for d in door_ids if ("open", d) in facts)

    door_ids = sorted(set(doors.values())) if doors else []
    reached: dict = {}   # (room, doors passable) -> rooms reachable: door states repeat across states

    def reach(start, passable: frozenset) -> frozenset:
        key = (start, passable)
        got = reached.get(key)
        if got is not None:
            return got
        seen = {start}
        stack = [start]
        while stack:
            r = stack.pop()
            for n in graph.get(r, ()):
                if n not in seen:
                    door = doors.get((r, n))
                    if door is None or door in passable:
                        seen.add(n)
                        stack.append(n)
        got = reached[key] = frozenset(seen)
        return got

    def door_work(st, here, need, takes) -> int:
        """Rooms behind a closed door cost an open; behind a locked one, an unlock and a key too."""
        facts = st.facts
        if need <= reach(here, frozenset(d for d in door_ids if ("open", d) in facts)):
            return 0
        extra = 1  # some door must be opened
        locked = [d for d in door_ids if ("locked", d) in facts]
        if need <= reach(here, frozenset(d for d in door_ids if d not in locked)):
            return extra
        extra += 1  # and unlocked, with a key in hand
        keys = [k for d in locked for k in keys_of.get(d, ())]
        if keys and not any(is_held(st, k) or k in takes for k in keys):
            extra += 1
        return extra

    return h
