"""The `adventure` command: argument parsing only; the work lives in the layers below."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from .engine.text import plural


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="adventure", description="A terminal workbench for text adventures.")
    from . import __version__

    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for command, help_text in (("play", "play a world in the terminal (the Textual app)"),
                               ("repl", "play a world line by line (plain text when stdin is not a terminal)")):
        p = sub.add_parser(command, help=help_text)
        p.add_argument("world")
        p.add_argument("--player", default="human",
                       help="human, oracle, random[:seed], scripted:FILE, replay:DIR or a model (switch in the app with ctrl+p)")
        p.add_argument("--records", default="records")
        p.add_argument("--name", help="the records' run name (default: the player's name, e.g. human)")
        p.add_argument("--mode", choices=["text", "tool", "tools"], default="text", help="how a model replies")
        p.add_argument("--blind", action="store_true", help="show only what a model player is told: no par,"
                       " progress, score so far, planner, undo or player switching (docs/studies.md)")
        p.add_argument("--new", action="store_true", help="a fresh episode even when your last one of this world"
                       " is unfinished (without it, that one continues)")
        if command == "play":
            p.add_argument("--paused", action="store_true", help="a model player waits for F5 (resume) or F6 (step)")
            _serve_options(p, "serve the app to browsers instead: each visitor gets their own game (watch a model"
                              " remotely); needs the [web] extra (docs/studies.md)")

    p = sub.add_parser("study", help="a participant plays a study's queue of worlds blind (human baselines)")
    p.add_argument("study", metavar="STUDY.yaml")
    p.add_argument("--participant", metavar="ID", help="letters, digits, - and _ (records go to RECORDS/human-ID)")
    p.add_argument("--records", default="records")
    p.add_argument("--repl", action="store_true", help="line mode instead of the Textual app (over ssh, or a pipe)")
    p.add_argument("--check", action="store_true", help="only check the study file and list the participant's queue")
    _serve_options(p, "serve the study to browsers: http://HOST:PORT/?participant=ID (or Prolific's PROLIFIC_PID)"
                      " starts or resumes that participant; needs the [web] extra (docs/studies.md)")

    p = sub.add_parser("replay", help="step through a recorded episode in the Textual app")
    p.add_argument("episode", metavar="EPISODE_DIR")
    p.add_argument("--world", help="the world file, when the records do not say where it is")

    p = sub.add_parser("watch", help="a live dashboard of the runs and episodes being written under ROOT;"
                       " Enter follows one episode (docs/watch.md)")
    p.add_argument("root", metavar="ROOT", help="a records folder (a batch's --records)")
    p.add_argument("--serve", action="store_true", help="serve the dashboard to a browser instead (extra [web])")
    p.add_argument("--host", default="127.0.0.1", help="with --serve: the address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="with --serve: the port (default 8000)")
    p.add_argument("--public-url", metavar="URL", help="with --serve: the address browsers reach it by, when"
                   " it is not http://HOST:PORT (a proxy, or --host 0.0.0.0)")

    p = sub.add_parser("run", help="play episodes headless (resumes what is done)")
    p.add_argument("worlds", nargs="+", metavar="WORLD_OR_DIR")
    p.add_argument("--player", required=True)
    p.add_argument("--records", default="records")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--mode", choices=["text", "tool", "tools"], default="text", help="how a model replies")
    p.add_argument("--name", help="the records' run name (default: the player's name; a model in tool"
                   " modes: NAME--tool or NAME--tools)")
    p.add_argument("--procs", type=int, default=1, metavar="P",
                   help="worker processes, each playing --jobs episodes at once (default 1)")
    p.add_argument("--shard", metavar="I/N", help="play only this share of the episodes (1/N .. N/N together"
                   " play each exactly once; the same on every machine)")
    p.add_argument("--max-turns", type=int, metavar="N",
                   help="end every episode after N turns (default: each world's own max_turns)")
    p.add_argument("--ray", metavar="ADDRESS|local", help="play the episodes as Ray tasks on the cluster at"
                   " ADDRESS, or on a Ray instance started here (local; --procs P gives it P CPUs);"
                   " needs the [ray] extra (docs/batches.md)")

    p = sub.add_parser("score", help="write scores.json for every episode under ROOT")
    p.add_argument("root")

    p = sub.add_parser("eval", help="results.csv / results.html like clem eval; models against people (paired.csv)")
    p.add_argument("root")

    p = sub.add_parser("import", help="import clembench instances or a TextWorld game as world files")
    p.add_argument("format", choices=["clembench", "textworld", "labyrinth"])
    p.add_argument("instances", nargs="?", metavar="INSTANCES.json|GAME.json",
                   help="clembench: upstream's in/instances.json (default: the copy that ships with"
                        " tui-adventure); textworld: the .json tw-make wrote (docs/textworld.md)")
    p.add_argument("--out", metavar="DIR|FILE", help="clembench: the folder (required); textworld: the world"
                   " file (default: GAME.yaml beside the game)")
    p.add_argument("--solution", metavar="FILE", help="textworld: the walkthrough, one command a line"
                   " (default: the world file with .txt)")

    p = sub.add_parser("check", help="validate world files")
    p.add_argument("worlds", nargs="+")

    p = sub.add_parser("generate", help="new worlds with exact par and difficulty features (docs/generate.md)")
    p.add_argument("--out", required=True, metavar="DIR", help="where the world files go")
    p.add_argument("--flavour", choices=["classic", "clembench"], default="classic",
                   help="classic worlds, or clembench adventuregame instances (docs/generate_clembench.md)")
    p.add_argument("--count", type=int, default=1, metavar="N")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="the first seed (then S+1, ...)")
    for knob, default in (("rooms", "8; clembench: 6"), ("objects", 20), ("goals", 3)):
        p.add_argument(f"--{knob}", type=int, help=f"default {default}")
    for knob in ("doors", "locked", "containers", "supports", "distractors"):
        p.add_argument(f"--{knob}", type=int)
    p.add_argument("--variant", choices=["basic", "planning", "both"],
                   help="clembench flavour: the prompt variant (both: two experiments, the same adventures)")
    p.add_argument("--inventory-limit", type=int, metavar="M",
                   help="clembench flavour only, M = 2: upstream's invlimittwo definitions and prompts")
    p.add_argument("--par", metavar="A..B", help="only worlds whose exact par lies in this range")
    p.add_argument("--theme", help="house, castle or ship (default house)")
    p.add_argument("--split", choices=["train", "dev", "test"], help="words of this split only (held out from the others)")
    p.add_argument("--budget", metavar="SECONDS", help="classic flavour: the time one world may take (60, 60s, 5m;"
                   " default 60 s); past it, the message names the knob to lower")

    p = sub.add_parser("solve", help="the exact optimal plan (par)")
    p.add_argument("world")
    p.add_argument("--json", action="store_true")
    p.add_argument("--budget", metavar="SECONDS|STATES",
                   help="stop the exact search after this long (30, 30s, 2m) or this many states expanded"
                        " (500000 states, 500k states); past it, par's proven bounds and the best plan found,"
                        " exit code 3")

    p = sub.add_parser("script", help="replay commands (stdin or a file, one a line)")
    p.add_argument("world")
    p.add_argument("--commands", metavar="FILE")
    p.add_argument("--jsonl", action="store_true")

    sub.add_parser("list", help="the worlds and clembench experiments that ship with tui-adventure")

    p = sub.add_parser("models", help="model servers: probe one before a long run (docs/models.md)")
    kinds = p.add_subparsers(dest="action", metavar="{probe}", required=True)
    q = kinds.add_parser("probe", help="ask an OpenAI-compatible server what a model player would otherwise learn"
                         " the hard way (system role, tools, streams) and keep the answers for the next runs")
    q.add_argument("url", metavar="URL", help="the server's OpenAI base URL, e.g. http://127.0.0.1:8080/v1")
    q.add_argument("--model", metavar="NAME", help="the model id to ask (default: the first the server lists)")
    q.add_argument("--key", default=None, help="the API key (default: $OPENAI_COMPATIBLE_API_KEY, else none)")
    q.add_argument("--timeout", type=float, default=120.0, metavar="S", help="seconds per request (default 120)")

    p = sub.add_parser("export", help="a world for another planner (pddl), records for trainers (trajectories),"
                       " or worlds as a clembench game (clemgame)")
    kinds = p.add_subparsers(dest="format", metavar="{pddl,trajectories,clemgame}", required=True)
    q = kinds.add_parser("clemgame", help="worlds as a clembench game that clemcore's clem run plays"
                         " (docs/clembench/RECORDS.md, Inside clembench)")
    q.add_argument("worlds", nargs="+", metavar="WORLD")
    q.add_argument("--out", required=True, metavar="DIR")
    q.add_argument("--name", metavar="NAME", help="the game's name and folder (default: tuiadventure)")
    q = kinds.add_parser("pddl", help="domain.pddl + problem.pddl of a world (docs/pddl.md)")
    q.add_argument("world")
    q.add_argument("--out", required=True, metavar="DIR")
    q = kinds.add_parser("trajectories", help="one chat-format line per episode of a records tree (docs/agents.md)")
    q.add_argument("root")
    q.add_argument("--format", dest="shape", choices=["jsonl"], default="jsonl")
    q.add_argument("--out", metavar="FILE", help="where the lines go (default: standard output)")

    p = sub.add_parser("serve", help="the environment over HTTP and WebSocket, an OpenEnv server (extra [serve];"
                       " docs/serve.md)")
    p.add_argument("world", nargs="?", default="house", help="the world a reset gets when it names none"
                   " (default: house)")
    p.add_argument("--worlds", metavar="DIR", help="clients may also name the .yaml files under DIR")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--max-sessions", type=int, default=8, metavar="N", help="WebSocket sessions at once")
    p.add_argument("--idle-timeout", type=float, default=300, metavar="SECONDS",
                   help="close a session idle this long (0: never)")
    p.add_argument("--infos", metavar="A,B", help="what observations may carry (default: the cheap ones;"
                   " par, progress and admissible_commands cost a planner search)")
    return parser


def _serve_options(p: argparse.ArgumentParser, help_text: str) -> None:
    p.add_argument("--serve", action="store_true", help=help_text)
    # how --serve starts a visitor's process ahead of them: loaded, it waits for the server's line on stdin
    p.add_argument("--await-visitor", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--host", default="127.0.0.1", help="with --serve: the address to listen on (0.0.0.0: every"
                   " network; put a reverse proxy with TLS in front, docs/studies.md)")
    p.add_argument("--port", type=int, default=8000, help="with --serve (default 8000)")
    p.add_argument("--max-sessions", type=int, default=8, metavar="N", help="with --serve: browsers playing at once")
    p.add_argument("--spares", type=int, default=None, metavar="N", help="with --serve: processes kept started"
                   " ahead of visitors, the app loaded (default 2, at most --max-sessions; as many as will arrive within a minute for a crowd)")
    p.add_argument("--idle-timeout", type=float, default=600, metavar="SECONDS",
                   help="with --serve: end a session nothing was typed in for this long (0: never; default 600;"
                        " the participant resumes by reloading)")


def _generate_problem(args, out: Path) -> str | None:
    """What is wrong with the arguments both flavours share, or None."""
    if out.exists() and not out.is_dir():
        return f"--out {out} is a file, not a folder"
    from .generate import KnobError, check_seeds

    if not 1 <= args.count <= 100_000:
        return "--count must be from 1 to 100000"
    try:
        check_seeds(args.seed, args.count)
    except KnobError as exc:
        return str(exc)
    return None


def _generate(args) -> int:
    import time

    from .generate import DEFAULT_SECONDS, Knobs, KnobError, generate, parse_par

    out = Path(args.out)
    problem = _generate_problem(args, out)
    if problem:
        print(f"adventure generate: {problem}", file=sys.stderr)
        return 2
    if args.flavour == "clembench":
        return _generate_clembench(args, out)
    if args.inventory_limit is not None or args.variant is not None:
        print("adventure generate: --inventory-limit and --variant need the clembench flavour (the classic"
              " ruleset has no inventory limit and no prompt variants)", file=sys.stderr)
        return 2
    from .headless import parse_budget

    try:
        seconds, states = parse_budget(args.budget) if args.budget is not None else (DEFAULT_SECONDS, None)
    except ValueError as exc:
        seconds, states = None, str(exc)
    if states is not None:
        print(f"adventure generate: --budget {args.budget}: give seconds (60, 60s, 5m)", file=sys.stderr)
        return 2
    knobs = Knobs(rooms=8 if args.rooms is None else args.rooms, objects=20 if args.objects is None else args.objects,
                  goals=3 if args.goals is None else args.goals, doors=args.doors, locked=args.locked,
                  containers=args.containers, supports=args.supports, distractors=args.distractors,
                  theme=args.theme or "house", split=args.split)
    started = time.perf_counter()

    def said(path, world) -> None:
        f = world.features
        print(f"{path}: par {world.par}, {plural(f['locks_on_path'], 'lock')} on the way (depth {f['lock_depth']}),"
              f" branching {f['branching']}, {plural(f['states_expanded'], 'state')} expanded")

    try:
        written = generate(args.count, args.seed, knobs, out, parse_par(args.par), progress=said, seconds=seconds,
                           note=lambda text: print(text, file=sys.stderr, flush=True))
    except KnobError as exc:
        print(f"adventure generate: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {plural(len(written), 'world')} to {out}/ in {time.perf_counter() - started:.1f} s")
    return 0


def _export_trajectories(root: str, out: str | None) -> int:
    import io

    from .engine.snapshot import write_atomic
    from .trajectories import export

    if not Path(root).is_dir():
        print(f"adventure export: {root} is not a folder of records", file=sys.stderr)
        return 1
    if out is not None and Path(out).is_dir():
        print(f"adventure export: --out {out} is a folder; name the .jsonl file to write", file=sys.stderr)
        return 1
    buf = io.StringIO() if out is not None else sys.stdout
    report = export(root, buf)
    if out is not None:
        write_atomic(Path(out), buf.getvalue().encode("utf-8"))
    left = ", ".join(f"{n} {why}" for why, n in sorted(report.left_out.items()))
    print(f"{plural(report.written, 'trajectory', 'trajectories')} from {plural(report.episodes, 'episode')} exported{f' ({left} left out)' if left else ''}"
          f"{f' to {out}' if out else ''}", file=sys.stderr)
    return 0


def _import_textworld(args) -> int:
    from .textworld import TextWorldError, import_game, report

    if args.instances is None:
        print("adventure import textworld: give the game's .json (tw-make writes it beside GAME.z8)",
              file=sys.stderr)
        return 2
    try:
        imported = import_game(args.instances, args.out, args.solution)
    except TextWorldError as exc:
        print(f"adventure import textworld: {exc}", file=sys.stderr)
        return 1
    print("\n".join(report(imported)))
    return 0


def _import_labyrinth(args) -> int:
    from .labyrinth import LabyrinthError, import_scene

    if args.instances is None:
        print("adventure import labyrinth: give the scene's .json (a gameplay log or a scene object)", file=sys.stderr)
        return 2
    try:
        target, _text = import_scene(args.instances, args.out)
    except LabyrinthError as exc:
        print(f"adventure import labyrinth: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {target}: a skeleton; adventure check {target} points at each TODO to turn into facts")
    return 0


def _generate_clembench(args, out: Path) -> int:
    import time

    from .generate import ClemKnobs, KnobError, generate_flavour, parse_par

    given = {"--objects": args.objects, "--doors": args.doors, "--locked": args.locked,
             "--containers": args.containers, "--supports": args.supports, "--distractors": args.distractors,
             "--theme": args.theme, "--split": args.split, "--budget": args.budget}
    classic = [flag for flag, value in given.items() if value is not None]
    if classic:
        print(f"adventure generate: {', '.join(classic)}: classic knobs; the clembench flavour uses upstream's"
              " home domain as it is (--rooms, --goals, --variant, --inventory-limit and --par shape it; its"
              " vocabulary is too small for held-out splits)", file=sys.stderr)
        return 2
    knobs = ClemKnobs(rooms=6 if args.rooms is None else args.rooms, goals=3 if args.goals is None else args.goals,
                      variant=args.variant or "basic", inventory_limit=args.inventory_limit)
    started = time.perf_counter()

    def said(game_id, adv) -> None:
        print(f"instance {game_id} (seed {adv.seed}): par {adv.par}, {plural(adv.expanded, 'state')} expanded")

    try:
        written = generate_flavour("clembench", args.count, args.seed, knobs, out, parse_par(args.par), said)
    except KnobError as exc:
        print(f"adventure generate: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out}/instances.json and {plural(len(written), 'world file')} in {out}/ in"
          f" {time.perf_counter() - started:.1f} s")
    return 0


def _probe(args) -> int:
    import asyncio
    import os

    from .players.probe import Unreachable, probe

    key = args.key or os.environ.get("OPENAI_COMPATIBLE_API_KEY") or "none"
    try:
        report = asyncio.run(probe(args.url, args.model, key, args.timeout))
    except Unreachable as exc:
        print(f"adventure models probe: {exc}", file=sys.stderr)
        return 2
    print(report.text())
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _main(args)
    except OSError as exc:   # a file or folder this user may not write or read: the place and the reason
        if exc.filename is None or isinstance(exc, BrokenPipeError):
            raise
        print(f"adventure {args.command}: {exc.filename}: {exc.strerror or exc}", file=sys.stderr)
        return 1


def _main(args) -> int:
    from . import headless

    records = getattr(args, "records", None)
    if records is not None:
        from pathlib import Path

        where = Path(records)
        blocker = next((p for p in (where, *where.parents) if p.exists() and not p.is_dir()), None)
        if blocker is not None:
            print(f"adventure {args.command}: --records {records}: {blocker} is a file, not a folder;"
                  " name a folder (it is created when missing)", file=sys.stderr)
            return 2

    if args.command == "check":
        return headless.check(args.worlds)
    if args.command == "solve":
        try:
            budget = headless.parse_budget(args.budget)
        except ValueError as exc:
            print(f"adventure solve: {exc}", file=sys.stderr)
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
        return _generate(args)
    if args.command == "list":
        from .catalog import listing

        print(listing())
        return 0
    if args.command == "run":
        from .batch import run
        from .engine.loader import MAX_TURNS_LIMIT

        if args.player.strip() == "human":
            print("adventure run: a headless run has no keyboard for the human player;"
                  " play with adventure play WORLD or adventure repl WORLD", file=sys.stderr)
            return 2

        if args.max_turns is not None and not 1 <= args.max_turns <= MAX_TURNS_LIMIT:
            print(f"adventure run: --max-turns must be from 1 to {MAX_TURNS_LIMIT}", file=sys.stderr)
            return 2
        from .batch import parse_shard

        try:
            shard = parse_shard(args.shard)
        except ValueError as exc:
            print(f"adventure run: {exc}", file=sys.stderr)
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
    if args.command == "score":
        from .gamemaster.scoring import score_root

        report = score_root(args.root)
        print(report.summary(args.root))
        for directory, why in report.unreadable:
            print(f"  {directory}: not scored, {why}", file=sys.stderr)
        return 1 if report.unreadable else 0
    if args.command == "eval":
        from .clembench.results import evaluate

        notes: list[str] = []
        for path in evaluate(args.root, notes):
            print(f"wrote {path}")
        for note in notes:
            print(f"  {note}")
        return 0
    if args.command == "import" and args.format == "textworld":
        return _import_textworld(args)
    if args.command == "import" and args.format == "labyrinth":
        return _import_labyrinth(args)
    if args.command == "import":
        if args.out is None or args.solution is not None:
            print("adventure import clembench: give --out DIR (and no --solution)", file=sys.stderr)
            return 2
        from .clembench.instances import import_instances
        from .clembench.packaged import INSTANCES
        from .engine.yamlpos import SourceErrors

        source = args.instances or INSTANCES
        try:
            written = import_instances(source, args.out)
        except OSError as exc:
            print(f"adventure import: {source}: cannot read it ({exc.strerror or exc})", file=sys.stderr)
            return 1
        except (ValueError, KeyError, TypeError, AttributeError, SourceErrors) as exc:
            what = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
            print(f"adventure import: {source}: not a clembench instances file ({what}); nothing was"
                  " written past the last good instance", file=sys.stderr)
            return 1
        print(f"wrote {len(written)} world files under {args.out}")
        return 0
    if args.command == "export" and args.format == "clemgame":
        from .export.clemgame import export as export_clemgame

        return export_clemgame(args.worlds, args.out, args.name)
    if args.command == "export" and args.format == "pddl":
        from .export.cli import export

        return export(args.world, args.out)
    if args.command == "export":
        return _export_trajectories(args.root, args.out)
    if args.command == "models":
        return _probe(args)
    if args.command == "serve":
        try:
            from .agents.serve import ServeError, configure, serve
        except ImportError as exc:
            print(f"adventure serve: needs the [serve] extra: pip install 'tui-adventure[serve]' ({exc})",
                  file=sys.stderr)
            return 2
        try:
            config = configure(args.world, args.worlds, args.max_sessions, args.idle_timeout, args.infos)
        except ServeError as exc:
            print(f"adventure serve: {exc}", file=sys.stderr)
            return 2
        return serve(config, args.host, args.port)
    if args.command == "watch":
        from .front_ends import watch

        return watch(args)
    if args.command in ("play", "repl", "replay", "study"):
        from .front_ends import play, replay, study

        return {"play": play, "repl": play, "replay": replay, "study": study}[args.command](args)
    return 2


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


if __name__ == "__main__":
    run()
