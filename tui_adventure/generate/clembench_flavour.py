"""New adventuregame instances in clembench's own home domain, scored by our exact par.

Upstream's 128 instances are only 32 adventures, and their ``optimal_turns``
is often not optimal (docs/clembench/ADVENTUREGAME.md); a benchmark needs
fresh adventures that the real clembench runs unchanged and whose par is
exact. So an adventure is built only from upstream's definition files (room
types and their exit rules, entity types at their standard locations,
openables closed) and written in upstream's instance schema, naming the same
action, room, entity and domain definition files, so clembench's interpreter
reads it as it reads its own. Par comes from our planner on the very World
``world_from_instance`` builds from the written instance.

Every choice comes from one ``random.Random`` seeded by a hash of the
version, the knobs that shape the adventure (rooms, goals), the seed and the
attempt, so the same command gives byte-identical files on any machine and
Python 3.10+. The prompt variant and the inventory limit are not in the
hash: basic, planning and limited experiments of one seed share their
adventures, as upstream's do.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from ..instances.convert import import_instances, world_from_instance
from ..instances.packaged import HOME, names_for
from ..engine.planning import Planner, PlannerLimit
from ..engine.snapshot import write_atomic
from .classic import KnobError
from ..engine.text import plural

VERSION = 1
GENERATOR = "tui-adventure clembench"
DEFINITIONS = HOME / "resources" / "definitions"
PROMPTS = HOME / "resources" / "initial_prompts"
VARIANTS = {"basic": ("basic", "basic_prompt_done"), "planning": ("plan", "plan_prompt_done")}
LIMIT = 2                 # upstream's only limited action definitions hold two things
BENCH_TURNS = 50          # upstream's bench_turn_limit
MAX_ATTEMPTS = 200
PLAN_NODES = 200_000      # a draft the planner cannot solve within this is redrawn (bounds the time)
NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True)
class Definitions:
    rooms: tuple[dict, ...]
    entities: tuple[dict, ...]


@lru_cache(maxsize=1)
def definitions() -> Definitions:
    rooms = json.loads((DEFINITIONS / "home_rooms.json").read_text(encoding="utf-8"))
    entities = json.loads((DEFINITIONS / "home_entities.json").read_text(encoding="utf-8"))
    return Definitions(tuple(rooms), tuple(entities))


@dataclass(frozen=True)
class ClemKnobs:
    rooms: int = 6                     # room types used, each once (the home domain has six)
    goals: int = 3                     # "deliver" goals: a takeable thing on/in a support/container
    variant: str = "basic"             # basic | planning | both (two experiments, the same adventures)
    inventory_limit: int | None = None  # None, or 2: upstream's invlimittwo definitions and prompts

    def resolved(self) -> "ClemKnobs":
        """Every knob checked against the home domain."""
        room_types = len(definitions().rooms)
        if not 2 <= self.rooms <= room_types:
            raise KnobError(f"--rooms must be from 2 to {room_types} for the clembench flavour (the home domain"
                            f" has {room_types} room types, each used once, and every room needs an exit),"
                            f" not {self.rooms}")
        takeables = sum(1 for e in definitions().entities if "takeable" in e.get("traits", ()))
        if not 1 <= self.goals <= takeables:
            raise KnobError(f"--goals must be from 1 to {takeables} (the home domain has {takeables} things one"
                            f" can carry), not {self.goals}")
        if self.variant not in (*VARIANTS, "both"):
            raise KnobError(f"unknown variant {self.variant!r} (use basic, planning or both)")
        if self.inventory_limit is not None and self.inventory_limit != LIMIT:
            raise KnobError(f"--inventory-limit {self.inventory_limit}: clembench's definitions only have a"
                            f" limit of {LIMIT} (basic_actions_v2_invlimit.json); another limit would not run"
                            f" in clembench")
        return self

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Adventure:
    """One adventure before it is written as instances: what every variant of it shares."""
    seed: int
    attempt: int
    initial_state: list[str]
    goal_state: list[str]
    goal_text: str
    par: int = 0
    solution: list | None = None
    commands: list[str] | None = None
    expanded: int = 0


def rng_for(knobs: ClemKnobs, seed: int, attempt: int) -> random.Random:
    text = json.dumps({"v": VERSION, "flavour": "clembench", "rooms": knobs.rooms, "goals": knobs.goals,
                       "seed": seed, "attempt": attempt}, sort_keys=True)
    return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big"))


# -- the map ----------------------------------------------------------------------------
@lru_cache(maxsize=None)
def layouts(count: int) -> tuple[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], ...]:
    """Every (room types, passages) of ``count`` room types that upstream's layout rules allow.

    Upstream's rules, read from home_rooms.json: a passage joins two room types when either lists the
    other in ``exit_targets``, and is walkable both ways; each room has from 1 to ``max_connections``
    passages to the types it lists itself (a passage only the other side lists is not counted); every
    room is reachable. There are few enough passages (eight) to list every layout and pick uniformly.
    """
    rooms = definitions().rooms
    order = [r["type_name"] for r in rooms]
    targets = {r["type_name"]: set(r["exit_targets"]) for r in rooms}
    limit = {r["type_name"]: r["max_connections"] for r in rooms}
    passages = sorted({tuple(sorted((a, b), key=order.index)) for a in order for b in targets[a] if b in targets},
                      key=lambda p: (order.index(p[0]), order.index(p[1])))
    out = []
    for chosen in itertools.combinations(order, count):
        inside = [p for p in passages if p[0] in chosen and p[1] in chosen]
        for mask in range(1 << len(inside)):
            edges = tuple(p for i, p in enumerate(inside) if mask >> i & 1)
            if _valid(chosen, edges, targets, limit):
                out.append((chosen, edges))
    return tuple(out)


def _valid(rooms, edges, targets, limit) -> bool:
    near: dict[str, set] = {r: set() for r in rooms}
    for a, b in edges:
        near[a].add(b)
        near[b].add(a)
    if any(not 1 <= len(near[r] & targets[r]) <= limit[r] for r in rooms):
        return False
    seen, todo = {rooms[0]}, [rooms[0]]
    while todo:
        for n in near[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen) == len(rooms)


# -- one adventure ------------------------------------------------------------------------
def draft(knobs: ClemKnobs, seed: int, attempt: int = 0) -> Adventure | None:
    """The initial state and goals of one adventure; None when the rooms drawn hold too few goals."""
    rng = rng_for(knobs, seed, attempt)
    defs = definitions()
    options = layouts(knobs.rooms)
    if not options:
        return None
    chosen, edges = options[rng.randrange(len(options))]
    rooms = [r for r in defs.rooms if r["type_name"] in chosen]
    room_id = {r["type_name"]: f"{r['type_name']}1" for r in rooms}
    floors = {r: f"{i}floor1" for r, i in room_id.items()}
    player_room = room_id[rooms[rng.randrange(len(rooms))]["type_name"]]

    at: dict[str, str] = {}            # entity id -> room id
    kind: dict[str, dict] = {}         # entity id -> its type definition
    for e in defs.entities:
        here = [loc for loc in e.get("standard_locations", ()) if loc in room_id]
        if here:
            ident = f"{e['type_name']}1"
            at[ident] = room_id[here[rng.randrange(len(here))]]
            kind[ident] = e
    traits = {i: set(e.get("traits", ())) for i, e in kind.items()}
    rest: dict[str, tuple[str, str]] = {}   # thing -> ("on" | "in", holder)
    for ident in kind:
        if "needs_support" in traits[ident]:
            room = at[ident]
            spots = [("on", floors[t]) for t, r in room_id.items() if r == room]
            spots += [("on" if "support" in traits[h] else "in", h) for h in kind
                      if at[h] == room and traits[h] & {"support", "container"}]
            rest[ident] = spots[rng.randrange(len(spots))]

    goals = _goals(rng, knobs.goals, kind, traits, rest)
    if goals is None:
        return None
    facts = [f"at({floors[t]},{room_id[t]})" for t in room_id]
    facts += [f"at({i},{r})" for i, r in at.items()] + [f"at(player1,{player_room})"]
    facts += [f"type({floors[t]},floor)" for t in room_id] + ["type(player1,player)"]
    facts += [f"type({i},{e['type_name']})" for i, e in kind.items()]
    facts += [f"room({i},{t})" for t, i in room_id.items()]
    facts += [f"support({floors[t]})" for t in room_id]
    facts += [f"support({i})" for i in kind if "support" in traits[i]]
    facts += [f"on({i},{h})" for i, (rel, h) in rest.items() if rel == "on"]
    facts += [f"container({i})" for i in kind if "container" in traits[i]]
    facts += [f"in({i},{h})" for i, (rel, h) in rest.items() if rel == "in"]
    for a, b in edges:
        facts += [f"exit({room_id[a]},{room_id[b]})", f"exit({room_id[b]},{room_id[a]})"]
    facts += [f"openable({i})" for i in kind if "openable" in traits[i]]
    facts += [f"closed({i})" for i in kind if "openable" in traits[i]]
    for trait in ("takeable", "movable", "needs_support"):
        facts += [f"{trait}({i})" for i in kind if trait in traits[i]]
    state = [f"{p}({a},{b})" for p, a, b in goals]
    return Adventure(seed, attempt, facts, state, _goal_text(goals, kind))


def _goals(rng, count: int, kind: dict, traits: dict, rest: dict) -> list[tuple[str, str, str]] | None:
    """Upstream's "deliver" goals: distinct takeable things, each to a support or container (never a
    floor) other than the one it starts on or in."""
    holders = [h for h in kind if traits[h] & {"support", "container"}]
    movable = [t for t in kind if "takeable" in traits[t] and any(h != rest.get(t, ("", ""))[1] for h in holders)]
    if len(movable) < count:
        return None
    out = []
    for thing in rng.sample(movable, count):
        to = [h for h in holders if h != rest.get(thing, ("", ""))[1]]
        target = to[rng.randrange(len(to))]
        out.append(("on" if "support" in traits[target] else "in", thing, target))
    return out


def _goal_text(goals, kind: dict) -> str:
    """The goal sentence in upstream's words: "Put the pillow on the table, the book in the wardrobe
    and the plate on the shelf." (surface names from ``repr_str``)."""
    parts = [f"the {kind[x]['repr_str']} {p} the {kind[y]['repr_str']}" for p, x, y in goals]
    if len(parts) == 1:
        return f"Put {parts[0]}."
    return f"Put {', '.join(parts[:-1])} and {parts[-1]}."


def instance(adv: Adventure, game_id: int, variant: str, limited: bool) -> dict:
    """One instance in upstream's schema, its keys in upstream's order."""
    tag, template = VARIANTS[variant]
    suffix = "_invlimittwo" if limited else ""
    prompt = (PROMPTS / f"{template}{suffix}.template").read_text(encoding="utf-8").replace("$GOAL$", adv.goal_text)
    return {
        "game_id": game_id, "variant": tag, "prompt": prompt,
        "initial_state": list(adv.initial_state), "goal_state": list(adv.goal_state),
        "max_turns": max(BENCH_TURNS, 2 * adv.par), "optimal_turns": adv.par,
        "optimal_solution": [list(s) for s in adv.solution or ()], "optimal_commands": list(adv.commands or ()),
        "action_definitions": ["basic_actions_v2_invlimit.json" if limited else "basic_actions_v2.json"],
        "room_definitions": ["home_rooms.json"], "entity_definitions": ["home_entities.json"],
        "domain_definitions": ["home_domain_invlimit.json" if limited else "home_domain.json"],
    }


def solve(adv: Adventure, limited: bool) -> bool:
    """Fill in par and the plan; False when the planner gives up within its budget or the plan
    could not be typed so that upstream reads it one way only (then the draft is redrawn)."""
    inst = instance(adv, 0, "basic", limited)
    experiment = "home_deliver_invlimittwo" if limited else "home_deliver"
    world = world_from_instance(inst, experiment, names_for(inst))
    try:
        plan = Planner(world, max_nodes=PLAN_NODES).solve()
    except PlannerLimit:
        return False
    if plan is None:
        return False
    typed = typed_plan(world, plan)
    if typed is None:
        return False
    adv.par, adv.expanded = plan.par, plan.expanded
    adv.solution, adv.commands = typed
    return True


def typed_plan(world, plan) -> tuple[list, list[str]] | None:
    """(optimal_solution, optimal_commands) for upstream's interpreter, or None if a step is ambiguous there.

    Upstream keeps its world state in a Python set, so two choices depend on the process's hash
    seed: which floor the word "floor" means, and which receptacle ``take X`` uses when X rests on
    two (``put`` does not lift a thing off its old place). A take from one of two places therefore
    names it ("take book from table"), and a plan that must name a floor is refused.
    """
    floors = {e for e, ent in world.entities.items() if ent.type == "floor"}
    state = world.initial
    solution, commands = [], []
    for (action_id, env), command in zip(plan.steps, plan.commands):
        if action_id == "take":
            e, s = env["e"], env["s"]
            rests = [f for f in state.facts if f[0] in ("on", "in") and f[1] == e]
            if len(rests) > 1:
                if s in floors:
                    return None
                command = f"take {world.name_of(e)} from {world.name_of(s)}"
                solution.append(["take", e, s])
            else:
                solution.append(["take", e])
        elif action_id == "put":
            if env["t"] in floors:
                return None
            solution.append(["put", env["e"], env["t"]])
        elif action_id == "go":
            solution.append(["go", env["d"]])
        else:
            solution.append([action_id, *env.values()])
        commands.append(command)
        state = world.action_by_id[action_id].successor(state, dict(env))
    return solution, commands


def adventure(knobs: ClemKnobs, seed: int, par: tuple[int, int] | None = None) -> Adventure:
    """The adventure of ``seed`` (with par within ``par`` when given); KnobError when there is none."""
    seen: list[int] = []
    limited = knobs.inventory_limit is not None
    for attempt in range(MAX_ATTEMPTS):
        adv = draft(knobs, seed, attempt)
        if adv is None or not solve(adv, limited):
            continue
        seen.append(adv.par)
        if par is None or par[0] <= adv.par <= par[1]:
            return adv
    if par is not None:
        span = f"par ranged {min(seen)}..{max(seen)}" if seen else "no draft was solved"
        raise KnobError(f"no adventure with par in {par[0]}..{par[1]} after {MAX_ATTEMPTS} drafts with these"
                        f" knobs ({span}): widen --par, or change --rooms, --goals")
    raise KnobError(f"no adventure of {plural(knobs.rooms, 'room')} and {plural(knobs.goals, 'goal')} after {MAX_ATTEMPTS} drafts:"
                    " more rooms or fewer goals")


def experiment_names(knobs: ClemKnobs) -> list[tuple[str, str]]:
    """(experiment name, variant) in upstream's naming: home_deliver_three_basic_generated[_invlimittwo]."""
    goals = NUMBERS[knobs.goals] if knobs.goals < len(NUMBERS) else str(knobs.goals)
    suffix = "_invlimittwo" if knobs.inventory_limit is not None else ""
    variants = list(VARIANTS) if knobs.variant == "both" else [knobs.variant]
    return [(f"home_deliver_{goals}_{v}_generated{suffix}", v) for v in variants]


def generate_clembench(count: int, seed: int, knobs: ClemKnobs, par: tuple[int, int] | None = None,
                       progress=None) -> tuple[dict, dict]:
    """(instances document in upstream's schema, provenance) for ``count`` adventures from seeds
    ``seed``, ``seed+1``, ...; the same arguments give the same documents."""
    knobs = knobs.resolved()
    advs = []
    for i in range(count):
        adv = adventure(knobs, seed + i, par)
        advs.append(adv)
        if progress is not None:
            progress(i, adv)
    limited = knobs.inventory_limit is not None
    doc = {"experiments": [{"name": name, "game_instances": [instance(a, i, v, limited) for i, a in enumerate(advs)]}
                           for name, v in experiment_names(knobs)]}
    made = {"generator": GENERATOR, "version": VERSION, "count": count, "seed": seed, "knobs": knobs.as_dict(),
            **({"par_range": list(par)} if par else {}),
            "adventures": [{"game_id": i, "seed": a.seed, "attempt": a.attempt, "par": a.par,
                            "states_expanded": a.expanded} for i, a in enumerate(advs)]}
    return doc, made


def write(doc: dict, made: dict, out: Path) -> list[Path]:
    """``out/instances.json`` (upstream's schema, ready for clembench's ``in/``), ``out/generated.json``
    (how it was made) and one world file per instance, ``out/<experiment>/instance_<id>.yaml``."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / "instances.json"
    write_atomic(target, (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    write_atomic(out / "generated.json", (json.dumps(made, indent=2) + "\n").encode("utf-8"))
    return import_instances(target, out)


def generate(count: int, seed: int, knobs: ClemKnobs, out: Path, par: tuple[int, int] | None = None,
             progress=None) -> list[Path]:
    doc, made = generate_clembench(count, seed, knobs, par, progress)
    return write(doc, made, out)


__all__ = ["ClemKnobs", "KnobError", "generate_clembench", "generate", "write", "layouts", "draft",
           "typed_plan"]
