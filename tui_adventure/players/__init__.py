"""Who plays: people, programs and language models, behind one protocol (``base.Player``)."""

from .backends.completion import ContextFull
from .base import Player, recorder_options
from .factory import learned_note, make_player
from .reply import Reply

__all__ = ["ContextFull", "Player", "Reply", "learned_note", "make_player", "recorder_options"]
