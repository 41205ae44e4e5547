"""Who plays: people, programs and language models, behind one protocol (``base.Player``)."""

from .base import Player, make_player

__all__ = ["Player", "make_player"]
