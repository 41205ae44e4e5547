"""tui-adventure: a terminal workbench for text adventures used as language-model benchmarks."""

__version__ = "0.1.0"


def _register_gym_ids() -> None:
    """``gymnasium.make("tui_adventure/World-v0")`` after ``import tui_adventure`` (the [gym] extra)."""
    try:
        from .agents.registration import register_when_imported

        register_when_imported()
    except Exception:   # a broken optional install must not break the package
        pass


_register_gym_ids()
