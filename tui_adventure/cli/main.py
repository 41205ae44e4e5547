"""The `adventure` command: argument parsing only; the work lives in the layers below."""

from __future__ import annotations

import os
import sys

from ..engine.text import visible
from . import commands
from .arguments import build_parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _main(args)
    except OSError as exc:   # a file or folder this user may not write or read: the place and the reason
        if exc.filename is None or isinstance(exc, BrokenPipeError):
            raise
        print(visible(f"adventure {args.command}: {exc.filename}: {exc.strerror or exc}"), file=sys.stderr)
        return 1


def _main(args) -> int:
    from ..batches import headless

    records = getattr(args, "records", None)
    if records is not None:
        from pathlib import Path

        where = Path(records)
        blocker = next((p for p in (where, *where.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            print(visible(f"adventure {args.command}: --records {records}: {blocker} is a file, not a folder;"
                          " name a folder (it is created when missing)"), file=sys.stderr)
            return 2

    refusal = _needs_our_engine(args)
    if refusal:
        print(visible(refusal), file=sys.stderr)
        return 2
    if args.command == "check":
        return headless.check(args.worlds)
    if args.command == "solve":
        try:
            budget = headless.parse_budget(args.budget)
        except ValueError as exc:
            print(visible(f"adventure solve: {exc}"), file=sys.stderr)
            return 2
        return headless.solve(args.world, args.json, budget=budget)
    if args.command == "script":
        if args.commands:
            with open(args.commands, encoding="utf-8", errors="surrogateescape") as fh:
                text = fh.read()
        else:
            text = sys.stdin.read()
        # lines end at \n only, as the REPL reads them (str.splitlines also splits at \x0b, \x85, U+2028)
        lines = [ln.removesuffix("\r") for ln in text.split("\n")]
        if lines and lines[-1] == "":
            lines.pop()
        return headless.script(args.world, lines, args.jsonl)
    if args.command == "generate":
        return commands.generate(args)
    if args.command == "list":
        from ..catalog import listing

        print(listing())
        return 0
    if args.command == "run":
        from ..batches.run import run
        from ..engine.loading import MAX_TURNS_LIMIT

        if args.player.strip() == "human":
            print("adventure run: a headless run has no keyboard for the human player;"
                  " play with adventure play WORLD or adventure repl WORLD", file=sys.stderr)
            return 2

        if args.max_turns is not None and not 1 <= args.max_turns <= MAX_TURNS_LIMIT:
            print(f"adventure run: --max-turns must be from 1 to {MAX_TURNS_LIMIT}", file=sys.stderr)
            return 2
        from ..batches.shards import parse_shard

        try:
            shard = parse_shard(args.shard)
        except ValueError as exc:
            print(visible(f"adventure run: {exc}"), file=sys.stderr)
            return 2
        if not 1 <= args.procs <= 256 or args.jobs < 1:
            print("adventure run: --procs must be from 1 to 256 and --jobs at least 1", file=sys.stderr)
            return 2
        if args.ray is not None and args.ray != "local" and args.procs > 1:
            print("adventure run: --procs sets the CPUs of --ray local; a cluster's own CPUs decide there",
                  file=sys.stderr)
            return 2
        return run(args.worlds, args.player, args.records, args.jobs, mode=args.mode, name=args.name,
                   max_turns=args.max_turns, shard=shard, procs=args.procs, ray=args.ray)
    if args.command in ("score", "eval") and not os.path.isdir(args.root):
        # score walked nothing and said it wrote 0; eval made the folder and wrote empty tables in it
        why = "does not exist" if not os.path.lexists(args.root) else "is not a folder"
        print(visible(f"adventure {args.command}: {args.root} {why}: give a records folder (a run's --records,"
                      " default records)"), file=sys.stderr)
        return 1
    if args.command == "score":
        from ..gamemaster.scoring import score_root

        report = score_root(args.root)
        print(visible(report.summary(args.root)))
        for directory, why in report.unreadable:
            print(visible(f"  {directory}: not scored, {why}"), file=sys.stderr)
        return 1 if report.unreadable else 0
    if args.command == "eval":
        from ..evaluation.results import NoEpisodes, evaluate

        notes: list[str] = []
        try:
            written = evaluate(args.root, notes)
        except NoEpisodes as exc:
            print(visible(f"adventure eval: {exc}"), file=sys.stderr)
            return 1
        for path in written:
            print(visible(f"wrote {path}"))
        for note in notes:
            print(visible(f"  {note}"))
        return 0
    if args.command == "import" and args.format == "textworld":
        return commands.import_textworld(args)
    if args.command == "import" and args.format == "labyrinth":
        return commands.import_labyrinth(args)
    if args.command == "import":
        if args.out is None or args.solution is not None:
            print("adventure import clembench: give --out DIR (and no --solution)", file=sys.stderr)
            return 2
        from ..instances.convert import import_instances
        from ..instances.packaged import INSTANCES
        from ..engine.snapshot import OutputRefused, check_output
        from ..engine.yamlpos import SourceErrors

        source = args.instances or INSTANCES
        try:
            check_output(args.out, folder=True)
            written = import_instances(source, args.out)
        except OutputRefused as exc:
            print(visible(f"adventure import: {exc.filename}: {exc.strerror}"), file=sys.stderr)
            return 1
        except OSError as exc:
            print(visible(f"adventure import: {source}: cannot read it ({exc.strerror or exc})"), file=sys.stderr)
            return 1
        except (ValueError, KeyError, TypeError, AttributeError, SourceErrors) as exc:
            what = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            print(visible(f"adventure import: {source}: not a clembench instances file ({what}); nothing was"
                          " written past the last good instance"), file=sys.stderr)
            return 1
        print(visible(f"wrote {len(written)} world files under {args.out}"))
        return 0
    if args.command == "export" and args.format == "clemgame":
        from ..export.clemgame import export as export_clemgame

        return export_clemgame(args.worlds, args.out, args.name, sys.stdout, sys.stderr)
    if args.command == "export" and args.format == "pddl":
        from ..export.cli import export

        return export(args.world, args.out, sys.stdout, sys.stderr)
    if args.command == "export":
        return commands.export_trajectories(args.root, args.out)
    if args.command == "models":
        return commands.probe(args)
    if args.command == "serve":
        try:
            from ..envs.serve import ServeError, configure, serve
        except ImportError as exc:
            print(visible(f"adventure serve: needs the [openenv] extra (OpenEnv; --serve of play, study and watch"
                          f" needs [web] instead): pip install 'tui-adventure[openenv]' ({exc})"),
                  file=sys.stderr)
            return 2
        try:
            config = configure(args.world, args.worlds, args.max_sessions, args.idle_timeout, args.infos)
        except ServeError as exc:
            print(visible(f"adventure serve: {exc}"), file=sys.stderr)
            return 2
        return serve(config, args.host, args.port)
    if args.command == "watch":
        from ..front_ends import watch

        return watch(args)
    if args.command in ("play", "repl", "replay", "study"):
        from ..front_ends import play, replay, study

        return {"play": play, "repl": play, "replay": replay, "study": study}[args.command](args)
    return 2


# what each command that works on a world's rules does with it (a story file has no rules to read)
_OUR_ENGINE = {"solve": "plans over the world's rules", "pddl": "writes the world's rules as PDDL",
               "clemgame": "writes our worlds as a clemgame's instances"}


def _needs_our_engine(args) -> str | None:
    """One line refusing a story file to a command that needs our engine's world, or None."""
    from ..catalog import is_story

    what = args.command if args.command == "solve" else getattr(args, "format", None)
    if what not in _OUR_ENGINE:
        return None
    named = [getattr(args, "world", None), *(getattr(args, "worlds", None) or [])]
    story = next((w for w in named if w and is_story(w)), None)
    if story is None:
        return None
    command = "solve" if what == "solve" else f"export {what}"
    return (f"adventure {command}: {story} is a Z-machine story file; {command} {_OUR_ENGINE[what]}, which only"
            " our worlds have: play it with adventure play, repl or run")


def run() -> None:
    """Console entry point: a closed pipe (``| head``) ends quietly, as Unix tools do."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)

