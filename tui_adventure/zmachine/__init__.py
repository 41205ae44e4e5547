"""Z-machine story files (Jericho): ``game.StorySource`` (what a WORLD argument opens; the file checked by ``story``) and ``game.StoryGame``
(one play-through, ``games.interface.Playable``)."""
