"""Every subcommand of ``adventure`` and its options, in one parser: ``adventure --help`` is this file."""

from __future__ import annotations

import argparse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="adventure", description="A terminal workbench for text adventures.")
    from .. import __version__

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
    # how --serve hands its visitors the study it read at its start (a private copy; web.server)
    p.add_argument("--frozen", metavar="FILE", help=argparse.SUPPRESS)
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
    p.add_argument("--max-sessions", type=int, default=4, metavar="N", help="with --serve: browsers watching at"
                   " once (default 4)")
    p.add_argument("--spares", type=int, default=None, metavar="N", help="with --serve: dashboards kept started"
                   " ahead of browsers (default 2, at most --max-sessions)")
    p.add_argument("--idle-timeout", type=float, default=3600, metavar="SECONDS",
                   help="with --serve: end a session nothing was typed in for this long (0: never; default 3600)")
    p.add_argument("--verbose", action="store_true", help="with --serve: print a line per request and per session"
                   " (by default only where it serves, and errors)")
    p.add_argument("--await-visitor", action="store_true", help=argparse.SUPPRESS)

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
    q.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="seconds for each whole request, streams included (default 120)")

    p = sub.add_parser("export", help="a world for another planner (pddl), records for trainers (trajectories),"
                       " or worlds as a clembench game (clemgame)")
    kinds = p.add_subparsers(dest="format", metavar="{pddl,trajectories,clemgame}", required=True)
    q = kinds.add_parser("clemgame", help="worlds as a clembench game that clemcore's clem run plays"
                         " (docs/clembench/RECORDS.md, Inside clembench)")
    q.add_argument("worlds", nargs="+", metavar="WORLD")
    q.add_argument("--out", required=True, metavar="DIR")
    q.add_argument("--name", metavar="NAME", help="the game's name and folder (default: tuiadventure): ASCII"
                   " letters, digits and _ . - + : @, at most 128 characters, not starting with . or -")
    q = kinds.add_parser("pddl", help="domain.pddl + problem.pddl of a world (docs/pddl.md)")
    q.add_argument("world")
    q.add_argument("--out", required=True, metavar="DIR")
    q = kinds.add_parser("trajectories", help="one chat-format line per episode of a records tree (docs/agents.md)")
    q.add_argument("root")
    q.add_argument("--format", dest="shape", choices=["jsonl"], default="jsonl")
    q.add_argument("--out", metavar="FILE", help="where the lines go (default: standard output)")

    p = sub.add_parser("serve", help="the environment over HTTP and WebSocket, an OpenEnv server (extra [openenv];"
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
                   " ahead of visitors, the app loaded (default 2, at most --max-sessions; as many as will arrive"
                   " within a minute for a crowd)")
    p.add_argument("--idle-timeout", type=float, default=600, metavar="SECONDS",
                   help="with --serve: end a session nothing was typed in for this long (0: never; default 600;"
                        " the participant resumes by reloading)")
    p.add_argument("--verbose", action="store_true", help="with --serve: print a line per request and per session"
                   " (by default only where it serves, and errors)")
