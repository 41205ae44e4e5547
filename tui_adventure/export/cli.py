"""``adventure export pddl``: the job behind the subcommand, kept out of cli.py (argument parsing only)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from ..catalog import open_world
from ..engine.yamlpos import SourceErrors
from .pddl import Inexpressible, write_pddl


def export(world_arg: str, out: str, stdout: IO = sys.stdout, stderr: IO = sys.stderr) -> int:
    """Write the two files and print their paths; one line on stderr and 1 for anything that stops it."""
    where = Path(out)
    if where.exists() and not where.is_dir():
        print(f"adventure export: --out {out} is a file, not a folder; name a folder (it is created when missing)",
              file=stderr)
        return 1
    try:
        world = open_world(world_arg)
        paths = write_pddl(world, where)
    except SourceErrors as exc:
        print(exc, file=stderr)
        return 1
    except Inexpressible as exc:
        print(f"adventure export: {world_arg}: cannot be written as PDDL: {exc}", file=stderr)
        return 1
    except OSError as exc:
        print(f"adventure export: {out}: {exc.strerror or exc}", file=stderr)
        return 1
    for path in paths:
        print(path, file=stdout)
    return 0
