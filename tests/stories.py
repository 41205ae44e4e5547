"""The story files written here (stories/) as the Z-machine tests use them."""

from __future__ import annotations

from pathlib import Path

STORIES = Path(__file__).resolve().parent.parent / "stories"
LIGHTHOUSE = STORIES / "lighthouse.z5"


def walkthrough(name: str) -> list[str]:
    """The commands of ``stories/NAME.walkthrough`` (one a line)."""
    return [line.strip() for line in (STORIES / f"{name}.walkthrough").read_text().splitlines() if line.strip()]


def new_story_game(path: Path = LIGHTHOUSE):
    """A new play-through of a story file; the test fails, naming the set-up, without Jericho."""
    from needs import module

    module("jericho", "zmachine")
    from tui_adventure.zmachine.game import open_story

    return open_story(path).new_game()

