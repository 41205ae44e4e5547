"""tui-adventure: a terminal workbench for text adventures used as language-model benchmarks.

The public face, loaded on first use (``import tui_adventure`` stays cheap)::

    from tui_adventure import open_world, Game

    game = Game(open_world("house"))
    result = game.step("go up")

Everything named in ``__all__`` is documented in docs/api.md; other modules are the project's own and may
change between versions. Importing the package also registers the Gymnasium ids (docs/agents.md) when the
``[gym]`` extra is installed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

__version__ = "0.1.0"

# public name -> the module that defines it
_PUBLIC = {
    "open_world": "tui_adventure.catalog",
    "load_world": "tui_adventure.engine.loading",
    "SourceErrors": "tui_adventure.engine.yamlpos",
    "World": "tui_adventure.engine.world",
    "Game": "tui_adventure.engine.game",
    "StepResult": "tui_adventure.engine.game",
    "solve_world": "tui_adventure.engine.planning",
    "Plan": "tui_adventure.engine.planning",
}

__all__ = ["Game", "Plan", "SourceErrors", "StepResult", "World", "__version__", "load_world", "open_world", "solve_world"]

if TYPE_CHECKING:
    from .catalog import open_world
    from .engine.game import Game, StepResult
    from .engine.loading import load_world
    from .engine.planning import Plan, solve_world
    from .engine.yamlpos import SourceErrors
    from .engine.world import World


def __getattr__(name: str):
    """Import a public name's module when the name is first used."""
    if name not in _PUBLIC:
        raise AttributeError(f"module 'tui_adventure' has no attribute {name!r}")
    value = getattr(import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])


def _register_gym_ids() -> None:
    """``gymnasium.make("tui_adventure/World-v0")`` after ``import tui_adventure`` (the [gym] extra)."""
    try:
        from .envs.registration import register_when_imported

        register_when_imported()
    except Exception:   # a broken optional install must not break the package
        pass


_register_gym_ids()
