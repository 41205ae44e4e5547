"""`adventure import textworld`: convert, load the result with our engine, replay, solve, then write.

The checks run before anything is written, so a game that does not convert
into a loadable world leaves nothing half-made behind; par comes from our exact planner and is
printed beside TextWorld's walkthrough length, which is not always optimal.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..engine.game import Game
from ..engine.loading import load_world_text
from ..engine.planning import Planner, PlannerLimit
from ..engine.snapshot import OutputRefused, check_output, write_atomic
from ..engine.yamlpos import SourceErrors
from .convert import Converted, TextWorldError, convert, game_json_path, load_game, make_id
from ..engine.text import plural

PAR_NODE_LIMIT = 2_000_000   # tw-make's games solve in thousands of states; past this, `adventure solve --budget`


@dataclass
class Imported:
    world_path: Path
    solution_path: Path
    converted: Converted
    par: int | None                   # our exact optimum; None with why in par_note
    par_note: str
    walkthrough_wins_at: int | None   # the turn the converted walkthrough first meets the goal here


def _targets(game_path: Path, out: str | Path | None, solution: str | Path | None) -> tuple[Path, Path]:
    """Default: GAME.yaml and GAME.txt beside the game; an existing folder as --out gets them inside."""
    if out is None:
        world_path = game_path.with_suffix(".yaml")
    elif Path(out).is_dir():
        _check_target(Path(out), folder=True)
        world_path = Path(out) / game_path.with_suffix(".yaml").name
    else:
        world_path = Path(out)
    solution_path = Path(solution) if solution is not None else world_path.with_suffix(".txt")
    for target, what in ((world_path, "the world"), (solution_path, "the walkthrough")):
        if target.resolve() == game_path.resolve():
            raise TextWorldError(f"{target}: is the game file itself; write {what} elsewhere")
        if target.is_dir() and not target.is_symlink():
            raise TextWorldError(f"{target}: is a folder; name a file for {what}")
        _check_target(target)
    if world_path.resolve() == solution_path.resolve():
        raise TextWorldError(f"{world_path}: the world and its walkthrough would overwrite each other;"
                             " give --solution another file")
    return world_path, solution_path


def _check_target(path: Path, folder: bool = False) -> None:
    try:
        check_output(path, folder)
    except OutputRefused as exc:
        raise TextWorldError(f"{exc.filename}: {exc.strerror}") from None


def import_game(game: str | Path, out: str | Path | None = None, solution: str | Path | None = None,
                max_nodes: int = PAR_NODE_LIMIT) -> Imported:
    """Convert, check that our engine loads the result, replay the walkthrough, compute par, then
    write: nothing is written for a game that does not convert into a loadable world."""
    game_path = game_json_path(game)
    data = load_game(game_path)
    world_path, solution_path = _targets(game_path, out, solution)
    try:
        conv = convert(data, name=make_id(world_path.stem, set()))  # a game name is part of record paths
    except TextWorldError as exc:
        raise TextWorldError(f"{game_path}: {exc}") from None
    text = conv.yaml()
    try:
        world = load_world_text(text, str(world_path))
    except SourceErrors as exc:
        first = exc.errors[0]
        more = f" (and {len(exc.errors) - 1} more)" if len(exc.errors) > 1 else ""
        raise TextWorldError(f"{game_path}: the converted world does not load: {first.message}{more}") from None

    g = Game(world)
    wins_at = None
    for turn, command in enumerate(conv.commands, 1):
        g.step(command)
        if wins_at is None and g.all_goals_achieved():
            wins_at = turn
    par, par_note = None, "the goals cannot be reached in the converted world (see docs/textworld.md)"
    try:
        plan = Planner(world, max_nodes=max_nodes).solve()
        if plan is not None:
            par, par_note = plan.par, ""
    except PlannerLimit:
        par_note = "not found within the search budget (try adventure solve --budget)"

    try:
        world_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(world_path, text.encode("utf-8"))
        solution_path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(solution_path, "".join(c + "\n" for c in conv.commands).encode("utf-8"))
    except OSError as exc:
        raise TextWorldError(f"{exc.filename or world_path}: cannot write it ({exc.strerror or exc})") from None
    return Imported(world_path, solution_path, conv, par, par_note, wins_at)


def report(imported: Imported) -> list[str]:
    """What `adventure import textworld` prints: where things went, and par beside TextWorld's walkthrough."""
    conv, world = imported.converted, imported.converted.world
    steps = len(conv.tw_commands)
    doors = sum(1 for o in world["objects"].values() if "door" in (o.get("traits") or ()))   # apart, as check counts
    counts = [plural(len(world["rooms"]), "room"), plural(len(world["objects"]) - doors, "object")]
    counts += [plural(doors, "door")] if doors else []
    lines = [f"wrote {imported.world_path} ({', '.join(counts)},"
             f" goal {', '.join(world['goal'])})",
             f"wrote {imported.solution_path} (TextWorld's walkthrough, {plural(steps, 'command')})"]
    lines.append(f"par {imported.par if imported.par is not None else imported.par_note};"
                 f" TextWorld's walkthrough {steps}")
    if imported.walkthrough_wins_at is None:
        lines.append("warning: the converted walkthrough does not win here (see docs/textworld.md)")
    elif imported.walkthrough_wins_at < steps:
        lines.append(f"note: the walkthrough meets the goal here at command {imported.walkthrough_wins_at}")
    lines.extend(f"warning: {w}" for w in conv.warnings)
    return lines
