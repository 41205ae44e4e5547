"""The commands that open a front end: ``play``, ``repl``, ``replay`` and ``study``.

Each reports a broken world, study or player in plain text before any
screen opens, then hands over to the Textual app or the REPL.
"""

from __future__ import annotations

import sys


def play(args) -> int:
    """``play`` and ``repl``: a broken world or player is reported in plain text before any screen opens."""
    from .engine.yamlpos import SourceErrors
    from .figures import BLIND, RESEARCHER
    from .session import open_session

    try:
        session = open_session(args.world, args.player, args.records, args.name, args.mode,
                               show=BLIND if args.blind else RESEARCHER)
    except SourceErrors as exc:
        print(exc, file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"adventure {args.command}: {exc}", file=sys.stderr)
        return 1
    try:
        if args.command == "repl":
            from .repl import run_repl

            return run_repl(session)
        from .app import run_app

        return run_app(session, args.mode, args.paused)
    finally:
        print(session.records_summary(), file=sys.stderr)


def replay(args) -> int:
    from pathlib import Path

    from .catalog import open_world
    from .clembench.records import RecordsError, read_episode
    from .engine.yamlpos import SourceErrors

    try:
        world = open_world(args.world) if args.world else None
        read_episode(args.episode, world)   # fail here, in plain text, not inside the app
    except SourceErrors as exc:
        print(exc, file=sys.stderr)
        return 1
    except RecordsError as exc:
        print(f"adventure replay: {exc}", file=sys.stderr)
        return 1
    from .app import AdventureApp

    AdventureApp(replay=Path(args.episode), replay_world=world).run()
    return 0




def study(args) -> int:
    """``adventure study``: the study file and the participant are checked before anything opens; the
    participant then plays their queue in the app (or the REPL), resuming where they left off."""
    from .clembench.records import Busy
    from .engine.yamlpos import SourceErrors
    from .study import StudyRun, check_participant, load_study

    try:
        check_participant(args.participant)
        run = StudyRun(load_study(args.study), args.participant, args.records)
    except SourceErrors as exc:
        print(exc, file=sys.stderr)
        return 1
    except (OSError, ValueError, Busy) as exc:
        print(f"adventure study: {exc}", file=sys.stderr)
        return 1
    if args.check:
        print(f"{run.study.title}: {len(run.stages)} worlds, order {run.study.order}"
              f" (row {run.row}), shown: {', '.join(run.study.show.shown()) or 'nothing beyond the prompt'}")
        for stage in run.stages:
            mark = "done" if run.done(stage) else "    "
            print(f"  {stage.position + 1:>3}. [{mark}] {stage.entry.label}  ({stage.entry.world.game})")
        return 0
    try:
        if args.repl:
            from .repl import run_study

            return run_study(run)
        from .app import run_study_app

        return run_study_app(run)
    except Busy as exc:
        print(f"adventure study: {exc}", file=sys.stderr)
        return 1
    finally:
        print(f"records: {run.records / run.run_name} ({run.done_count()} of {len(run.stages)} worlds done)",
              file=sys.stderr)


def watch(args) -> int:
    """``adventure watch ROOT [--serve]``: a root that cannot be watched is said in one line; the
    dashboard opens in the terminal, or is served to browsers (each connection runs its own)."""
    import os
    from pathlib import Path

    from .watch.tree import root_problem

    root = Path(args.root)
    problem = root_problem(root)
    if problem:
        print(f"adventure watch: {problem}", file=sys.stderr)
        return 1
    if args.serve:
        from .serve_web import ServeUnavailable, serve_app

        command = [sys.executable, "-m", "tui_adventure.cli", "watch", os.path.abspath(root)]
        try:
            return serve_app(command, args.host, args.port, title=f"adventure watch {root}",
                             public_url=args.public_url)
        except ServeUnavailable as exc:
            print(f"adventure watch: {exc}", file=sys.stderr)
            return 2
    from .app import run_watch_app

    return run_watch_app(root)
