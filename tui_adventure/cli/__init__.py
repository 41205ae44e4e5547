"""The ``adventure`` command: its arguments and the subcommand each one runs.

``tui_adventure.cli:run`` is the console script; ``python -m tui_adventure.cli`` is the same
program (the web server starts its visitors' apps that way).
"""

from .main import main, run

__all__ = ["main", "run"]
