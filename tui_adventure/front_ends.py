"""The commands that open a front end: ``play``, ``repl``, ``replay`` and ``study``.

Each reports a broken world, study or player in plain text before any
screen opens, then hands over to the Textual app or the REPL.
"""

from __future__ import annotations

import sys
from .engine.text import plural, visible


def play(args) -> int:
    """``play`` and ``repl``: a broken world or player is reported in plain text before any screen opens."""
    from .engine.yamlpos import SourceErrors
    from .catalog import open_world
    from .keyboard.figures import BLIND, RESEARCHER
    from .keyboard.session import open_session

    if getattr(args, "serve", False):
        return _serve_play(args)
    served = getattr(args, "await_visitor", False)
    # a served visitor is a stranger: a new episode of their own (never the last visitor's unfinished one),
    # saves in a folder of this session's that goes with it, and no line of theirs in the operator's history
    private: dict = {}
    try:
        if args.command == "play" and not served:
            open_world(args.world)   # a broken world is said first: it is the problem to fix
            if _no_terminal("play", "for piped input use adventure repl WORLD, for a headless run"
                                    " adventure run WORLD --player NAME"):
                return 2
        if served:
            from .web.visitor import bound

            bound()
            open_world(args.world)   # loaded (and cached) before the wait
            _visitor()
            private = visitor_state()   # made once a visitor came: a spare ended unused leaves nothing
        session = open_session(args.world, args.player, args.records, args.name, args.mode,
                               show=BLIND if args.blind else RESEARCHER, resume=not (args.new or served), **private)
    except SourceErrors as exc:
        _forget(private)
        print(visible(str(exc)), file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        _forget(private)
        print(visible(f"adventure {args.command}: {exc}"), file=sys.stderr)
        return 1
    try:
        if args.command == "repl":
            from .repl.loop import run_repl

            return run_repl(session)
        from .app import run_app

        return run_app(session, args.mode, args.paused, served=served)
    finally:
        session.close()
        _forget(private)
        print(visible(session.records_summary()), file=sys.stderr)


def _no_terminal(command: str, instead: str) -> bool:
    """True, having said so in one line with what to use ``instead``, when there is no terminal to draw in."""
    if _terminal():
        return False
    print(f"adventure {command}: needs a terminal (stdin and stdout); {instead}", file=sys.stderr)
    return True


def _terminal() -> bool:
    """Whether both stdin and stdout are terminals: the app drawn to a pipe would spin and show nobody."""
    try:
        return sys.stdin is not None and sys.stdout is not None and sys.stdin.isatty() and sys.stdout.isatty()
    except ValueError:   # a closed stream
        return False


def visitor_state() -> dict:
    """A served visitor's own saves folder (new and empty, removed by ``_forget`` when the session ends)
    and a history kept in memory only: ``open_session``'s ``saves`` and ``history``."""
    import tempfile

    from .keyboard.history import History

    return {"saves": tempfile.mkdtemp(prefix="adventure-visitor-"), "history": History(None)}


def _forget(private: dict) -> None:
    import shutil

    if private.get("saves"):
        shutil.rmtree(private["saves"], ignore_errors=True)


def _serve_play(args) -> int:
    """``adventure play WORLD --serve``: each visitor gets ``adventure play`` with the same options."""
    from .catalog import open_world
    from .engine.yamlpos import SourceErrors

    try:
        world = open_world(args.world)   # a broken world stops the server before the port opens
    except SourceErrors as exc:
        print(visible(str(exc)), file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(visible(f"adventure play: {exc}"), file=sys.stderr)
        return 1
    argv = [f"--player={args.player}", f"--records={args.records}", f"--mode={args.mode}"]
    argv += [f"--name={args.name}"] if args.name else []
    argv += ["--blind"] if args.blind else []
    argv += ["--paused"] if args.paused else []
    return _serve(args, "play", [*argv, "--", args.world], title=world.title)   # the world's title, not its path


def replay(args) -> int:
    from pathlib import Path

    from .catalog import open_world
    from .records.files import VIEW_LIMIT, RecordsError, read_episode
    from .engine.yamlpos import SourceErrors

    try:
        world = open_world(args.world) if args.world else None
        read_episode(args.episode, world, VIEW_LIMIT)   # fail here, in plain text, not inside the app
    except SourceErrors as exc:
        print(visible(str(exc)), file=sys.stderr)
        return 1
    except RecordsError as exc:
        print(visible(f"adventure replay: {exc}"), file=sys.stderr)
        return 1
    if _no_terminal("replay", "adventure export trajectories and adventure eval read records without one"):
        return 2
    from .app import AdventureApp

    AdventureApp(replay=Path(args.episode), replay_world=world).run()
    return 0




def study(args) -> int:
    """``adventure study``: the study file and the participant are checked before anything opens; the
    participant then plays their queue in the app (or the REPL), resuming where they left off."""
    from .records.files import Busy
    from .engine.yamlpos import SourceErrors
    from .study import StudyRun, check_participant, load_study
    from .study.spec import thaw_study

    if args.serve:
        return _serve_study(args)
    if args.participant is None and not args.await_visitor:
        print("adventure study: give --participant ID (or --serve, where each link names its participant)",
              file=sys.stderr)
        return 2
    try:
        if args.await_visitor:
            from .web.visitor import bound

            bound()
        # a served visitor plays the study as the server read it at its start (--frozen)
        loaded = thaw_study(args.frozen) if args.frozen else load_study(args.study)
        participant, visit = (check_participant(args.participant), {}) if not args.await_visitor else _visitor()
        if participant is None:   # the server admits only a link that names one
            raise ValueError("the visitor's link names no participant (?participant=ID)")
        run = StudyRun(loaded, participant, args.records, visit, check=args.check)
    except SourceErrors as exc:
        print(visible(str(exc)), file=sys.stderr)
        return 1
    except (OSError, ValueError, Busy) as exc:
        print(visible(f"adventure study: {exc}"), file=sys.stderr)
        return 1
    resume = ""
    if args.check:
        newcomer = run.needs_consent() or not run.on_roster()
        pending = " (not started yet: the order the next newcomer gets)" if newcomer else ""
        print(visible(f"{run.study.title}: {plural(len(run.stages), 'world')}, order {run.study.order}"
                      f" (row {run.row}{pending}), shown: {', '.join(run.study.show.shown()) or 'nothing beyond the prompt'}"))
        for stage in run.stages:
            mark = "done" if run.done(stage) else "    "
            print(visible(f"  {stage.position + 1:>3}. [{mark}] {stage.entry.label}  ({stage.entry.world.game})"))
        return 0
    if not (args.repl or args.await_visitor) and _no_terminal("study", "add --repl for line mode (piped input),"
                                                                        " or --serve for browsers"):
        return 2
    try:
        run.hold()
        if args.repl:
            from .repl.loop import run_study

            return run_study(run)
        from .app import run_study_app

        status = run_study_app(run, cursor_blink=not args.await_visitor, served=args.await_visitor)
        if status == 1 and not args.await_visitor and not run.needs_consent():
            resume = _resume_command(args)
            status = 0   # quitting to resume later is a way to use a study, not a failure
        return status
    except Busy as exc:
        print(visible(f"adventure study: {exc}"), file=sys.stderr)
        return 1
    finally:
        run.release()
        if not run.needs_consent():
            print(visible(f"records: {run.records / run.run_name} ({run.done_count()} of {plural(len(run.stages), 'world')} done)"),
                  file=sys.stderr)
        if resume:
            print(visible(f"your progress is saved; to resume at the first world not finished: {resume}"),
                  file=sys.stderr)


def _resume_command(args) -> str:
    """The command that resumes this participant's study where they quit."""
    import shlex

    words = ["adventure", "study", args.study, "--participant", args.participant]
    words += ["--records", args.records] if args.records != "records" else []
    return shlex.join(words)


def _visitor() -> tuple[str | None, dict]:
    """Started by ``--serve`` ahead of its visitor (``--await-visitor``): the app is imported and the world or
    study loaded; now the server's line says who came (``study.visit.await_hello``) and the window's size."""
    import os

    import importlib

    from .study.visit import await_hello

    # imported before the wait, so that the visitor does not wait for them
    for module in ("tui_adventure.app", "tui_adventure.screens.play", "tui_adventure.screens.study",
                   "tui_adventure.screens.watch", "tui_adventure.web.driver"):
        importlib.import_module(module)

    participant, visit, columns, rows = await_hello()
    os.environ["COLUMNS"], os.environ["ROWS"] = str(columns), str(rows)   # the web driver's first size
    return participant, visit


def _serve_study(args) -> int:
    if args.participant is not None or args.repl or args.check or args.await_visitor or args.frozen:
        print("adventure study: --serve takes no --participant, --repl or --check (each browser's link names"
              " its participant)", file=sys.stderr)
        return 2
    import shutil
    from functools import partial
    from pathlib import Path

    from .engine.yamlpos import SourceErrors
    from .study.queue import is_sitting
    from .study.spec import freeze_study

    try:
        from .web.server import private_folder
    except ImportError as exc:
        print(f"adventure study: --serve needs the [web] extra: pip install 'tui-adventure[web]' ({exc})",
              file=sys.stderr)
        return 2
    folder = private_folder()
    try:
        try:   # every world of it, before the port opens; visitors play this copy (the file's later edits wait
            # for the next start) and generate nothing
            study, frozen = freeze_study(Path(args.study).resolve(), folder)
        except SourceErrors as exc:
            print(visible(str(exc)), file=sys.stderr)
            return 1
        records = Path(args.records).resolve()
        return _serve(args, "study", [f"--records={records}", f"--frozen={frozen}", "--",
                                      str(Path(args.study).resolve())],
                      admit=partial(is_sitting, study, records), title=study.title)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _serve(args, command: str, argv: list[str], admit=None, title: str = "tui-adventure") -> int:
    """The app in a browser (textual-serve, extra ``[web]``): one process per visitor."""
    try:
        from .web.server import Limits, WebError, serve
    except ImportError as exc:
        print(visible(f"adventure {command}: --serve needs the [web] extra: pip install 'tui-adventure[web]' ({exc})"),
              file=sys.stderr)
        return 2
    try:
        limits = Limits.checked(args.max_sessions, args.idle_timeout, args.spares)
        return serve(command, argv, args.host, args.port, limits, admit, title, getattr(args, "public_url", None),
                     verbose=args.verbose)
    except WebError as exc:
        print(visible(f"adventure {command}: {exc}"), file=sys.stderr)
        return 2


def watch(args) -> int:
    """``adventure watch ROOT [--serve]``: a root that cannot be watched is said in one line; the
    dashboard opens in the terminal, or is served to browsers (each connection runs its own)."""
    import os
    from pathlib import Path

    from .watch.tree import root_problem

    root = Path(args.root)
    problem = root_problem(root)
    if problem:
        print(visible(f"adventure watch: {problem}"), file=sys.stderr)
        return 1
    if args.serve:   # each browser gets its own dashboard process, with a study's bounds (web.server)
        return _serve(args, "watch", ["--", os.path.abspath(root)], title=f"adventure watch {root}")
    if args.await_visitor:
        from .web.visitor import bound

        bound()
        _visitor()
    if not args.await_visitor and _no_terminal("watch", "add --serve to watch in a browser"):
        return 2
    from .app import run_watch_app

    return run_watch_app(root)
