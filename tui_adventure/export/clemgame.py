"""``adventure export clemgame``: our worlds as a clembench game folder that clemcore's runner plays.

``DIR/NAME/`` gets ``clemgame.json``, ``in/instances.json`` (``clemgame/instances.py``) and a
``master.py`` of one import: the game master is the installed package's (``clemgame/master.py``),
so a game written once keeps playing with the engine the environment has, never a stale copy.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import IO

from ..catalog import expand, open_world
from ..clemgame.instances import NotAnInstance, instances_document
from ..engine.names import UnsafeName, inside, is_safe_name
from ..engine.snapshot import check_output, write_atomic
from ..engine.text import visible
from .cli import exported

DEFAULT_NAME = "tuiadventure"
# folders clemcore's game lookup never enters (clemgame/registry.py), so a game there is never found
SKIPPED_BY_CLEMCORE = {"venv", "__pycache__", "docs", "in", "resources", "utils", "evaluation", "files"}

MASTER = '''"""tui-adventure's worlds as a clemgame, written by `adventure export clemgame`.

The game master is tui-adventure's own, from the installed package (pip install tui-adventure beside
clemcore): the instances in in/instances.json name the worlds it plays.
"""
from tui_adventure.clemgame.master import (AdventureGameBenchmark, AdventureGameMaster,  # noqa: F401
                                           AdventureGameScorer, AdventureInstanceGenerator)
'''


SHOWN_CHARS = 40   # of a refused name, in its one-line error
GAME_NAME_RULE = ("ASCII letters, digits and _ . - + : @, at most 128 characters, not starting with . or -"
                  " and without ..")   # engine.names' rule


def check_game_name(name: str) -> str:
    """``name`` if clemcore can find and select a game by it and it is a safe folder name; else UnsafeName,
    whose one line shows the name (cut, escaped) and says what a game name may be."""
    if not name:
        raise UnsafeName(f"--name is empty: a game name is {GAME_NAME_RULE} (without --name: {DEFAULT_NAME})")
    if not is_safe_name(name):
        shown = repr(name[:SHOWN_CHARS]) + (f"... ({len(name)} characters)" if len(name) > SHOWN_CHARS else "")
        raise UnsafeName(f"--name {shown} cannot be a folder name: a game name is {GAME_NAME_RULE}")
    if name in SKIPPED_BY_CLEMCORE:
        raise UnsafeName(f"--name {name!r}: clemcore never looks for games in a folder of that name; choose another")
    try:
        json.loads(name)
    except ValueError:
        return name
    raise UnsafeName(f"--name {name!r}: clem run -g reads it as JSON, not as a game name; choose another")


def spec(name: str, players: int, count: int) -> dict:
    roles = ["Adventurer"] * players
    return {"game_name": name, "description": f"tui-adventure worlds ({count} instances), played by tui-adventure's"
            " engine", "main_game": name, "players": players, "image": "none", "languages": ["en"],
            "benchmark": [], "roles": roles}


def write_clemgame(worlds: list, out: Path, name: str) -> list[Path]:
    """Write the game folder for ``worlds`` ((argument, World) pairs); the files written."""
    document, order = instances_document(worlds)
    count = sum(len(e["game_instances"]) for e in document["experiments"])
    game = inside(out, name)
    check_output(game, folder=True)   # a symlink there would take the game's files somewhere else
    files = [(game / "clemgame.json", spec(name, max(1, len(order)), count)),
             (game / "in" / "instances.json", document), (game / "master.py", MASTER)]
    for path, content in files:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content, indent=2, ensure_ascii=False) + "\n"
        write_atomic(path, text.encode("utf-8"))
    return [path for path, _ in files]


def export(world_args: list[str], out: str, name: str | None, stdout: IO | None = None,
           stderr: IO | None = None) -> int:
    """Write the game and say how to play it; one line on stderr and 1 for anything that stops it."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    named: list[str] = []

    def write(where: Path) -> list[Path]:
        named.append(check_game_name(DEFAULT_NAME if name is None else name))
        worlds = [(arg, open_world(arg)) for arg in expand(world_args)]
        if not worlds:
            raise NotAnInstance("no worlds to export (an empty folder?)")
        return write_clemgame(worlds, where, named[0])

    def refusal(exc: ValueError) -> str:
        if isinstance(exc, (UnsafeName, NotAnInstance)):
            return str(exc)
        raise exc

    code = exported(out, write, refusal, stdout, stderr)
    if code == 0:
        where = Path(out)
        print(visible(f"play it from {where}: cd {where} && clem run -g {named[0]} -m MODEL (mock: our oracle)"), file=stdout)
    return code
