"""What the Z-machine tests share: a play-through of stories/lighthouse.z5."""

import pytest

from stories import new_story_game


@pytest.fixture
def lighthouse():
    game = new_story_game()
    yield game
    game.close()
