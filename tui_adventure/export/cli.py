"""What every ``adventure export`` shares, and ``adventure export pddl`` itself."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Callable, Sequence

from ..catalog import our_world
from ..engine.snapshot import check_output
from ..engine.text import visible
from ..engine.yamlpos import SourceErrors
from .pddl import Inexpressible, write_pddl


def exported(out: str, write: Callable[[Path], Sequence[Path]], refusal: Callable[[ValueError], str],
             stdout: IO, stderr: IO) -> int:
    """``write(folder)`` run as every export runs it: ``--out`` must be a folder; a broken world is
    said as the loader says it, an export's own refusal (a ValueError) as ``refusal`` words it, the
    disk's with the folder; the paths written are printed. One line on stderr and 1 when it stops."""
    where = Path(out)
    try:
        check_output(where, folder=True)
        paths = write(where)
    except SourceErrors as exc:
        print(visible(str(exc)), file=stderr)
        return 1
    except ValueError as exc:
        print(visible(f"adventure export: {refusal(exc)}"), file=stderr)
        return 1
    except OSError as exc:
        print(visible(f"adventure export: {visible(exc.filename or out)}: {exc.strerror or exc}"), file=stderr)
        return 1
    for path in paths:
        print(visible(str(path)), file=stdout)
    return 0


def export(world_arg: str, out: str, stdout: IO | None = None, stderr: IO | None = None) -> int:
    """Write the two files and print their paths."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    def refusal(exc: ValueError) -> str:
        if isinstance(exc, Inexpressible):
            return f"{world_arg}: cannot be written as PDDL: {exc}"
        raise exc

    return exported(out, lambda where: write_pddl(our_world(world_arg), where), refusal, stdout, stderr)
