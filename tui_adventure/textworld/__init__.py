"""TextWorld games (made by ``tw-make``) imported as classic worlds; reads their JSON, never needs TextWorld."""

from .convert import Converted, TextWorldError, convert, convert_command, load_game, world_yaml
from .importer import Imported, import_game, report

__all__ = ["Converted", "Imported", "TextWorldError", "convert", "convert_command", "import_game", "load_game",
           "report", "world_yaml"]
