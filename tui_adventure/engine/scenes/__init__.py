"""Scenes: characters, happenings and losses that play out in a world (``scene``) and the text
functions their messages may call (``scene_text``)."""

from .scene import SCENE_PREDICATES, SPOKEN_TO, Character, Happening, Loss, Scene, SceneSpec, Table
from .scene_text import scene_functions

__all__ = ["Character", "Happening", "Loss", "SCENE_PREDICATES", "SPOKEN_TO", "Scene", "SceneSpec", "Table",
           "scene_functions"]
