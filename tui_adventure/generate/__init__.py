"""``adventure generate``: new benchmark worlds with their exact par and measured difficulty.

A world is drafted from the knobs and a seed (``classic.py``), read back by
the loader exactly as ``check`` and ``play`` will read it, solved by the
exact planner, and written with its par, the generator's version, every
knob and seed, and difficulty features. ``--par A..B`` rejects and redrafts
(the attempt number is part of the seed, so the result is still a function
of the command line).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..engine.loading import MAX_TURNS_LIMIT, load_world_data
from ..engine.planning import Planner, PlannerLimit
from ..engine.snapshot import write_atomic
from .built import world_of_draft
from .budget import DEFAULT_SECONDS, MAX_SEED, Budget, OutOfTime, check_seeds, too_slow
from .classic import VERSION, Knobs, KnobError, draft, dump
from . import clembench_flavour
from .clembench_flavour import ClemKnobs, generate_clembench

__all__ = ["Generated", "KnobError", "Knobs", "MAX_SEED", "DEFAULT_SECONDS", "check_seeds", "ClemKnobs", "FLAVOURS",
           "generate_world", "generated_world", "generate",
           "generate_clembench", "generate_flavour"]

FLAVOURS = ("classic", "clembench")   # clembench: adventuregame instances in upstream's home domain and schema

GENERATOR = "tui-adventure classic"
MAX_ATTEMPTS = 200
PLAN_NODES = 100_000     # a draft the planner cannot solve within this is redrawn, not written (bounds the time)


@dataclass
class Generated:
    name: str
    text: str            # the world file
    par: int
    features: dict


def generated_world(knobs: Knobs, seed: int, solve: bool = True, seconds: float | None = DEFAULT_SECONDS):
    """The World of ``generate_world(knobs, seed)`` built from its document, no YAML written and read
    back, nor the document checked as a file is (a trainer's env makes one per reset: ``built.py``).
    ``solve=False`` leaves par (and the max_turns made from
    it, and the difficulty features) out: no planner search, the first draft, which is winnable by
    construction (``generate_world`` redraws only when its planner gives up, on worlds far larger)."""
    knobs = _resolved(knobs)
    check_seeds(seed, what="seed")
    if not solve:
        d = draft(knobs, seed, 0)
        doc = {**d.doc, "generated": _making_of_draft(knobs, seed)}
        return world_of_draft(doc, f"<generated {knobs.theme} {seed}>")
    ordered = _within(knobs, seed, None, None, seconds, None)[0]
    return world_of_draft(ordered, f"<generated {knobs.theme} {seed}>")


_RESOLVED: dict[Knobs, Knobs] = {}   # knobs -> resolved (a trainer's env draws a world of the same knobs per reset)


def _resolved(knobs: Knobs) -> Knobs:
    hit = _RESOLVED.get(knobs)
    if hit is None:
        hit = knobs.resolved()   # KnobError for knobs that make no world: never kept
        if len(_RESOLVED) > 256:
            _RESOLVED.clear()
        _RESOLVED[knobs] = hit
    return hit


def generate_world(knobs: Knobs, seed: int, par: tuple[int, int] | None = None, name: str | None = None,
                   seconds: float | None = DEFAULT_SECONDS, note=None) -> Generated:
    """The world of ``knobs`` and ``seed`` (with par within ``par`` when given), made within ``seconds``
    (None: no limit); KnobError when the knobs cannot make one, or not in time (naming the knob to
    lower). ``note(text)`` hears how it goes, every few seconds, while a world takes long. Drafts are
    read as documents; only the chosen one is written as YAML."""
    knobs = knobs.resolved()
    check_seeds(seed, what="seed")
    ordered, par_found, features = _within(knobs, seed, par, name, seconds, note)
    return Generated(ordered["game"], dump(ordered), par_found, features)


def _within(knobs: Knobs, seed: int, par, name, seconds: float | None, note):
    budget = Budget(seconds, note)
    try:
        with budget.enforced():
            return _solved(knobs, seed, par, name, budget)
    except OutOfTime:
        assert seconds is not None   # only a budget of some seconds runs out
        raise too_slow(seed, seconds, {"goals": (knobs.goals, 3), "objects": (knobs.objects, 20),
                                       "rooms": (knobs.rooms, 8)}, budget.tried) from None


def _making(knobs: Knobs, par, seed: int, attempt: int, **more) -> dict:
    return {"generator": GENERATOR, "version": VERSION, "experiment": experiment_of(knobs, par), "seed": seed,
            "attempt": attempt, "knobs": {k: v for k, v in knobs.as_dict().items() if v is not None},
            **({"par_range": list(par)} if par else {}), **more}


def _making_of_draft(knobs: Knobs, seed: int) -> dict:
    """``_making(knobs, None, seed, 0)`` for a world per reset: its experiment named once per knobs."""
    hit = _EXPERIMENTS.get(knobs)
    if hit is None:
        if len(_EXPERIMENTS) > 256:
            _EXPERIMENTS.clear()
        hit = _EXPERIMENTS[knobs] = (experiment_of(knobs, None),
                                     {k: v for k, v in knobs.as_dict().items() if v is not None})
    return {"generator": GENERATOR, "version": VERSION, "experiment": hit[0], "seed": seed, "attempt": 0,
            "knobs": hit[1].copy()}


_EXPERIMENTS: dict[Knobs, tuple] = {}   # knobs -> (their experiment, their knobs written)


def _solved(knobs: Knobs, seed: int, par, name, budget: Budget):
    """(the document, its par, its features) of the first draft solved within ``par``."""
    seen: list[int] = []
    for attempt in range(MAX_ATTEMPTS if par else 8):
        budget.left()
        budget.tried += 1
        found = f", par {min(seen)}..{max(seen)} so far, looking for {par[0]}..{par[1]}" if seen and par else ""
        budget.progress(f"seed {seed}: drafting world {attempt + 1}{found}")
        d = draft(knobs, seed, attempt)
        world = load_world_data(d.doc, f"<generated {knobs.theme} {seed}>")
        budget.progress(f"seed {seed}: solving draft {attempt + 1}{found}")
        try:
            plan = Planner(world, max_nodes=PLAN_NODES, max_seconds=budget.left()).solve()
        except PlannerLimit:
            budget.progress(f"seed {seed}: draft {attempt + 1} not solved within the planner's budget;"
                            " drawing another", say=True)
            continue
        if plan is None:   # cannot happen by construction; redraw rather than write an unwinnable world
            continue
        seen.append(plan.par)
        if par is not None and not par[0] <= plan.par <= par[1]:
            continue
        features = difficulty(world, plan, d.lock_depth, knobs)
        doc = d.doc
        if name:
            doc = {**doc, "game": name}
        ordered = {k: doc[k] for k in ("game", "title", "ruleset", "intro", "start")}
        ordered["max_turns"] = min(MAX_TURNS_LIMIT, max(30, 4 * plan.par))
        ordered["par"] = plan.par
        ordered["generated"] = _making(knobs, par, seed, attempt, features=features)
        ordered.update({k: doc[k] for k in ("rooms", "objects", "goal")})
        return ordered, plan.par, features
    if par is not None:
        span = f"par ranged {min(seen)}..{max(seen)}" if seen else "no draft was solved within the planner's budget"
        raise KnobError(f"no world with par in {par[0]}..{par[1]} after {MAX_ATTEMPTS} drafts with these knobs"
                        f" ({span}): widen --par, or change --rooms, --goals, --locked")
    raise KnobError("the planner could not solve any draft of these knobs within its budget: fewer rooms,"
                    " objects or goals")


def experiment_of(knobs: Knobs, par: tuple[int, int] | None = None) -> str:
    """The records' experiment of a world: its knobs (and par range), so worlds made alike are scored
    together and a seed names one world within it."""
    split = f"_{knobs.split}" if knobs.split else ""
    span = f"_par{par[0]}-{par[1]}" if par else ""
    return f"{knobs.theme}{split}_r{knobs.rooms}_o{knobs.objects}_g{knobs.goals}{span}"


def difficulty(world, plan, lock_depth: dict[str, int], knobs: Knobs) -> dict:
    """What makes the world hard, measured on its optimal plan (docs/generate.md says what each means)."""
    planner = Planner(world)
    state = world.initial
    branching = []
    carried = 0
    unlocked: list[str] = []
    for (action_id, env), _command in zip(plan.steps, plan.commands):
        branching.append(len(planner.successors(state)))
        action = world.action_by_id[action_id]
        if action_id == "unlock":
            unlocked.append(env.get("obj"))
        state = action.successor(state, dict(env))
        carried = max(carried, sum(1 for f in state.facts if f[0] == "held"))
    return {"par": plan.par, "states_expanded": plan.expanded,
            "locks_on_path": len(unlocked),
            "lock_depth": max((lock_depth.get(d, 1) for d in unlocked), default=0),
            "distractors": knobs.distractors,
            "branching": round(sum(branching) / len(branching), 2) if branching else 0.0,
            "carried_peak": carried}


def parse_par(text: str | None) -> tuple[int, int] | None:
    """``A..B`` (or one number) as a range; KnobError with the expected form otherwise."""
    if text is None:
        return None
    low, sep, high = text.partition("..")
    try:
        a, b = int(low), int(high if sep else low)
    except ValueError:
        raise KnobError(f"--par {text!r}: write a range such as 10..20 (or one number)") from None
    if a < 0 or b < a or b > MAX_TURNS_LIMIT:
        raise KnobError(f"--par {text!r}: the range must run from a smaller to a larger par, both from 0 to"
                        f" {MAX_TURNS_LIMIT} (a world's turn limit)")
    return a, b


def generate(count: int, seed: int, knobs: Knobs, out: Path, par: tuple[int, int] | None = None,
             progress=None, seconds: float | None = DEFAULT_SECONDS, note=None) -> list[Path]:
    """``count`` worlds from seeds ``seed``, ``seed+1``, ... written to ``out/<name>.yaml``, each made
    within ``seconds`` (see ``generate_world``)."""
    resolved = knobs.resolved()
    check_seeds(seed, count)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i in range(count):
        s = seed + i
        name = f"{experiment_of(resolved, par)}_s{s}"
        made = generate_world(knobs, s, par, name=f"generated_{resolved.theme}", seconds=seconds, note=note)
        made.name = name
        path = out / f"{name}.yaml"
        write_atomic(path, made.text.encode("utf-8"))
        written.append(path)
        if progress is not None:
            progress(path, made)
    return written


def generate_flavour(flavour: str, count: int, seed: int, knobs, out: Path, par: tuple[int, int] | None = None,
                     progress=None, seconds: float | None = DEFAULT_SECONDS, note=None) -> list[Path]:
    """``generate`` for either flavour: classic worlds from ``Knobs``, or clembench instances
    (``out/instances.json`` plus their world files) from ``ClemKnobs`` (small enough by its knobs'
    own limits, the home domain's size, to need no budget: its largest takes a second)."""
    check_seeds(seed, count)
    if flavour == "clembench":
        return clembench_flavour.generate(count, seed, knobs, out, par, progress)
    if flavour == "classic":
        return generate(count, seed, knobs, out, par, progress, seconds, note)
    raise KnobError(f"unknown flavour {flavour!r} (use {' or '.join(FLAVOURS)})")
