"""``adventure import labyrinth``: a Labyrinth game-manager scene as a world skeleton (convert.py)."""

from .convert import LabyrinthError, convert_scene, import_scene

__all__ = ["LabyrinthError", "convert_scene", "import_scene"]
