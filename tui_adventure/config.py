"""The app's settings: one YAML file a person can edit, never required.

``$TUI_ADVENTURE_CONFIG`` or ``~/.config/tui-adventure/config.yaml`` (XDG).
A broken file never stops the app: the problem is reported and the defaults
are used. The theme chosen in the palette is written back, so it sticks
(not from a served visitor's session: ``AdventureApp.served``).

    theme: textual-dark
    speed: normal            # fast | normal | slow: a model's pace
    panels: [room, inventory, goals, score, player]
    keymap:                  # binding id -> keys, e.g. model.pause: ctrl+space
      model.pause: f5
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .widgets.panels import PANEL_IDS as PANELS
SPEEDS = ("fast", "normal", "slow")


def config_path() -> Path:
    env = os.environ.get("TUI_ADVENTURE_CONFIG")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "tui-adventure" / "config.yaml"


@dataclass
class Config:
    theme: str | None = None
    speed: str = "normal"
    panels: list[str] = field(default_factory=lambda: list(PANELS))
    keymap: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    path: Path | None = None

    def save_theme(self, theme: str) -> None:
        """Write the theme back, keeping the rest of the file; atomically, and quietly on failure."""
        if self.path is None or theme == self.theme:
            return
        self.theme = theme
        try:
            data = yaml.safe_load(self.path.read_text(encoding="utf-8")) if self.path.exists() else {}
            data = data if isinstance(data, dict) else {}
            data["theme"] = theme
            from .engine.snapshot import write_atomic

            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.path, yaml.safe_dump(data, sort_keys=False).encode("utf-8"))
        except (OSError, yaml.YAMLError):
            pass


def load_config(path: Path | None = None) -> Config:
    path = path or config_path()
    cfg = Config(path=path)
    if not path.exists():
        return cfg
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError) as exc:
        cfg.problems.append(f"{path}: cannot read it ({exc}); using the defaults")
        return cfg
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        cfg.problems.append(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)}); using the defaults")
        return cfg
    if not isinstance(data, dict):
        cfg.problems.append(f"{path}: expected keys like 'theme: textual-dark'; using the defaults")
        return cfg
    for key in data:
        if key not in ("theme", "speed", "panels", "keymap"):
            cfg.problems.append(f"{path}: unknown setting {key!r} (use theme, speed, panels, keymap)")
    if isinstance(data.get("theme"), str):
        cfg.theme = data["theme"]
    speed = data.get("speed", "normal")
    if speed in SPEEDS:
        cfg.speed = speed
    else:
        cfg.problems.append(f"{path}: speed {speed!r} is not one of {', '.join(SPEEDS)}")
    panels = data.get("panels", list(PANELS))
    if isinstance(panels, list) and all(p in PANELS for p in panels):
        cfg.panels = list(panels)
    else:
        cfg.problems.append(f"{path}: panels is a list of {', '.join(PANELS)}")
    keymap = data.get("keymap", {})
    if isinstance(keymap, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in keymap.items()):
        cfg.keymap = dict(keymap)
    else:
        cfg.problems.append(f"{path}: keymap maps binding ids to keys, e.g. 'model.pause: f5'")
    return cfg
