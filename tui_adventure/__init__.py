"""tui-adventure: a terminal workbench for text adventures used as language-model benchmarks."""

__version__ = "0.1.0"
