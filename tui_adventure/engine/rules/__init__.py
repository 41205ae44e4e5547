"""The rule language: conditions and effects (``logic_ast``), their compiler (``logic``), rulesets
of actions (``ruleset``) and the checks an action's rules get against a world (``world_actions``)."""

from .logic import Compiler, LogicError, parse_condition, parse_effects
from .logic_ast import (Add, And, Atom, Compare, Const, Count, Delete, Exists, ForEach, Forall, Not, Or, When, atoms_in,
                        conjuncts, effect_predicates, fresh, substitute, walk_all)
from .ruleset import Action, ActionSpec, RulesetSpec, compile_actions, load_ruleset, parse_actions
from .world_actions import GOAL_ARITY, LOADER_FACTS, TRAITS, ActionChecks

__all__ = [
    "Action", "ActionChecks", "ActionSpec", "Add", "And", "Atom", "Compare", "Compiler", "Const", "Count",
    "Delete", "Exists", "ForEach", "Forall", "GOAL_ARITY", "LOADER_FACTS", "LogicError", "Not", "Or",
    "RulesetSpec", "TRAITS", "When", "atoms_in", "compile_actions", "conjuncts", "effect_predicates", "fresh",
    "load_ruleset", "parse_actions", "parse_condition", "parse_effects", "substitute", "walk_all",
]
