"""Z-machine story files (Jericho): ``game.Story`` (what a WORLD argument opens) and ``game.StoryGame``
(one play-through, ``games.interface.Playable``)."""
