"""Who plays: people, programs and (in their own issue) language models, behind one protocol."""

from .base import Player, make_player

__all__ = ["Player", "make_player"]
