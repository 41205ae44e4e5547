"""Par: the exact planner (``planner``, A* over the facts), its admissible estimate (``heuristic``,
with ``walk`` and ``door_tree``), the legal moves of a state (``admissible``) and the smaller world
it searches (``planning_view``)."""

from .distances import Distances
from .heuristic import transport_heuristic
from .planner import Plan, Planner, PlannerLimit, solve_world
from .planning_view import planning_view

__all__ = ["Distances", "Plan", "Planner", "PlannerLimit", "planning_view", "solve_world", "transport_heuristic"]
