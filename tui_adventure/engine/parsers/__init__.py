"""What a typed line means: ``parser`` for rulesets written with ``syntax`` patterns (compiled in
``patterns``), ``clem_parser`` for clembench's adventuregame grammar."""

from .clem_parser import ClemParser, ParsedAction, ParseFailure
from .parser import CommandParser, Failure, Parsed, Question

__all__ = ["ClemParser", "CommandParser", "Failure", "ParseFailure", "Parsed", "ParsedAction", "Question"]
