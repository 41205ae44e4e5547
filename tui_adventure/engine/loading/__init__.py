"""World files read and checked: ``loader`` (YAML to a ``World``, every problem at file:line:col),
with the checks of goals (``goal_checks``), scenes (``scene_checks``) and placement (``placement``)."""

from .loader import MAX_TURNS_LIMIT, load_world, load_world_data, load_world_text

__all__ = ["MAX_TURNS_LIMIT", "load_world", "load_world_data", "load_world_text"]
