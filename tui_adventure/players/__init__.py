"""Who plays: people, programs and language models, behind one protocol (``base.Player``)."""

from .base import Player
from .factory import make_player
from .reply import Reply

__all__ = ["Player", "Reply", "make_player"]
