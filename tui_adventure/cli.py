"""The `adventure` command: argument parsing only; the work lives in the layers below."""

from __future__ import annotations

import argparse
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="adventure", description="A terminal workbench for text adventures.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("play", help="play a world in the terminal")
    p.add_argument("world")
    p.add_argument("--player", default="human")
    p.add_argument("--records", default="records")

    p = sub.add_parser("run", help="play episodes headless (resumes what is done)")
    p.add_argument("worlds", nargs="+", metavar="WORLD_OR_DIR")
    p.add_argument("--player", required=True)
    p.add_argument("--records", default="records")
    p.add_argument("--jobs", type=int, default=1)

    p = sub.add_parser("score", help="write scores.json for every episode under ROOT")
    p.add_argument("root")

    p = sub.add_parser("eval", help="results.csv / results.html like clem eval")
    p.add_argument("root")

    p = sub.add_parser("import", help="import clembench instances as world files")
    p.add_argument("format", choices=["clembench"])
    p.add_argument("instances")
    p.add_argument("--out", required=True, metavar="DIR")

    p = sub.add_parser("check", help="validate world files")
    p.add_argument("worlds", nargs="+")

    p = sub.add_parser("solve", help="the exact optimal plan (par)")
    p.add_argument("world")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("script", help="replay commands (stdin or a file, one a line)")
    p.add_argument("world")
    p.add_argument("--commands", metavar="FILE")
    p.add_argument("--jsonl", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from . import headless

    if args.command == "check":
        return headless.check(args.worlds)
    if args.command == "solve":
        return headless.solve(args.world, args.json)
    if args.command == "script":
        if args.commands:
            with open(args.commands, encoding="utf-8") as fh:
                lines = fh.read().splitlines()
        else:
            lines = sys.stdin.read().splitlines()
        return headless.script(args.world, lines, args.jsonl)
    if args.command == "run":
        from .batch import run

        return run(args.worlds, args.player, args.records, args.jobs)
    if args.command == "score":
        from .clembench.scorer import score_tree

        written = score_tree(args.root)
        print(f"wrote {len(written)} scores.json under {args.root}")
        return 0
    if args.command == "eval":
        from .clembench.results import evaluate

        print(f"wrote {evaluate(args.root)}")
        return 0
    if args.command == "import":
        from .clembench.instances import import_instances

        written = import_instances(args.instances, args.out)
        print(f"wrote {len(written)} world files under {args.out}")
        return 0
    if args.command == "play":
        from .lineplay import play
        return play(args.world)
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
