"""The subcommands whose work is more than one call into the layers below: generating, importing,
exporting trajectories and probing a model server, each reported in plain text with an exit code."""

from __future__ import annotations

import sys
from pathlib import Path

from ..engine.text import plural, visible


def _generate_problem(args, out: Path) -> str | None:
    """What is wrong with the arguments both flavours share, or None."""
    from ..generate import KnobError, check_seeds

    if not 1 <= args.count <= 100_000:
        return "--count must be from 1 to 100000"
    try:
        check_seeds(args.seed, args.count)
    except KnobError as exc:
        return str(exc)
    return None


def generate(args) -> int:
    import time

    from ..engine.snapshot import check_output
    from ..generate import DEFAULT_SECONDS, Knobs, KnobError, generate, parse_par

    out = Path(args.out)
    check_output(out, folder=True)   # a file, a pipe or a symlink: one line from main, exit 1
    problem = _generate_problem(args, out)
    if problem:
        print(visible(f"adventure generate: {problem}"), file=sys.stderr)
        return 2
    if args.flavour == "clembench":
        return _generate_clembench(args, out)
    if args.inventory_limit is not None or args.variant is not None:
        print("adventure generate: --inventory-limit and --variant need the clembench flavour (the classic"
              " ruleset has no inventory limit and no prompt variants)", file=sys.stderr)
        return 2
    from ..batches.headless import parse_budget

    try:
        seconds, states = parse_budget(args.budget) if args.budget is not None else (DEFAULT_SECONDS, None)
    except ValueError:
        seconds, states = None, None
    if seconds is None or states is not None:   # not a time, or a count of states (solve's other budget)
        print(visible(f"adventure generate: --budget {args.budget}: give seconds (60, 60s, 5m)"), file=sys.stderr)
        return 2
    knobs = Knobs(rooms=8 if args.rooms is None else args.rooms, objects=20 if args.objects is None else args.objects,
                  goals=3 if args.goals is None else args.goals, doors=args.doors, locked=args.locked,
                  containers=args.containers, supports=args.supports, distractors=args.distractors,
                  theme=args.theme or "house", split=args.split)
    started = time.perf_counter()

    def said(path, world) -> None:
        f = world.features
        print(visible(f"{path}: par {world.par}, {plural(f['locks_on_path'], 'lock')} on the way (depth {f['lock_depth']}),"
                      f" branching {f['branching']}, {plural(f['states_expanded'], 'state')} expanded"))

    try:
        written = generate(args.count, args.seed, knobs, out, parse_par(args.par), progress=said, seconds=seconds,
                           note=lambda text: print(visible(text), file=sys.stderr, flush=True))
    except KnobError as exc:
        print(visible(f"adventure generate: {exc}"), file=sys.stderr)
        return 2
    print(visible(f"wrote {plural(len(written), 'world')} to {out}/ in {time.perf_counter() - started:.1f} s"))
    return 0


def export_trajectories(root: str, out: str | None) -> int:
    import io

    from ..engine.snapshot import check_output, write_atomic
    from ..export.trajectories import export

    if not Path(root).is_dir():
        print(visible(f"adventure export: {root} is not a folder of records"), file=sys.stderr)
        return 1
    if out is not None and Path(out).is_dir() and not Path(out).is_symlink():
        print(visible(f"adventure export: --out {out} is a folder; name the .jsonl file to write"), file=sys.stderr)
        return 1
    if out is not None:
        check_output(out)   # a pipe, a device or a symlink: one line from main, before any work
    buf = io.StringIO()
    report = export(root, buf if out is not None else sys.stdout)
    if out is not None:
        write_atomic(Path(out), buf.getvalue().encode("utf-8"))
    left = ", ".join(f"{n} {why}" for why, n in sorted(report.left_out.items()))
    written = plural(report.written, 'trajectory', 'trajectories')
    print(visible(f"{written} from {plural(report.episodes, 'episode')} exported{f' ({left} left out)' if left else ''}"
                  f"{f' to {out}' if out else ''}"), file=sys.stderr)
    return 0


def import_textworld(args) -> int:
    from ..textworld import TextWorldError, import_game, report

    if args.instances is None:
        print("adventure import textworld: give the game's .json (tw-make writes it beside GAME.z8)",
              file=sys.stderr)
        return 2
    try:
        imported = import_game(args.instances, args.out, args.solution)
    except TextWorldError as exc:
        print(visible(f"adventure import textworld: {exc}"), file=sys.stderr)
        return 1
    print(visible("\n".join(report(imported))))
    return 0


def import_labyrinth(args) -> int:
    from ..labyrinth import LabyrinthError, import_scene

    if args.instances is None:
        print("adventure import labyrinth: give the scene's .json (a gameplay log or a scene object)", file=sys.stderr)
        return 2
    try:
        target, _text = import_scene(args.instances, args.out)
    except LabyrinthError as exc:
        print(visible(f"adventure import labyrinth: {exc}"), file=sys.stderr)
        return 1
    print(visible(f"wrote {target}: a skeleton; adventure check {target} points at each TODO to turn into facts"))
    return 0


def _generate_clembench(args, out: Path) -> int:
    import time

    from ..generate import ClemKnobs, KnobError, generate_flavour, parse_par

    given = {"--objects": args.objects, "--doors": args.doors, "--locked": args.locked,
             "--containers": args.containers, "--supports": args.supports, "--distractors": args.distractors,
             "--theme": args.theme, "--split": args.split, "--budget": args.budget}
    classic = [flag for flag, value in given.items() if value is not None]
    if classic:
        print(visible(f"adventure generate: {', '.join(classic)}: classic knobs; the clembench flavour uses upstream's"
                      " home domain as it is (--rooms, --goals, --variant, --inventory-limit and --par shape it; its"
                      " vocabulary is too small for held-out splits)"), file=sys.stderr)
        return 2
    knobs = ClemKnobs(rooms=6 if args.rooms is None else args.rooms, goals=3 if args.goals is None else args.goals,
                      variant=args.variant or "basic", inventory_limit=args.inventory_limit)
    started = time.perf_counter()

    def said(game_id, adv) -> None:
        print(visible(f"instance {game_id} (seed {adv.seed}): par {adv.par}, {plural(adv.expanded, 'state')} expanded"))

    try:
        written = generate_flavour("clembench", args.count, args.seed, knobs, out, parse_par(args.par), said)
    except KnobError as exc:
        print(visible(f"adventure generate: {exc}"), file=sys.stderr)
        return 2
    print(visible(f"wrote {out}/instances.json and {plural(len(written), 'world file')} in {out}/ in"
                  f" {time.perf_counter() - started:.1f} s"))
    return 0


def probe(args) -> int:
    import asyncio
    import os

    from ..players.probe import Unreachable, probe

    key = args.key or os.environ.get("OPENAI_COMPATIBLE_API_KEY") or "none"
    if not 0 < args.timeout < float("inf"):
        print("adventure models probe: --timeout must be a number of seconds above 0", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(probe(args.url, args.model, key, args.timeout))
    except (Unreachable, ValueError) as exc:
        print(visible(f"adventure models probe: {exc}"), file=sys.stderr)
        return 2
    print(visible(report.text()))
    return 0
