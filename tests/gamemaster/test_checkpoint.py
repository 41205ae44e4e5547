"""A batch rewrites an episode's records at most every CHECKPOINT seconds, and loses nothing by it.

Each rewrite renames a new file over the old one, which cost as much CPU as a
fast model turn; so turns that come quickly are written together, a timer
writes them while the next model call is still out, and the end of the episode
and a cancelled episode (Ctrl-C) are written at once.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from conftest import WORLDS
from tui_adventure.batches import episodes as batch
from tui_adventure.batches.episodes import play_episode
from tui_adventure.engine.loading.loader import load_world
from tui_adventure.players.programmatic import ScriptedPlayer

SCRIPT = ["go west", "take red book", "go east", "go north", "look", "done"]


class Watching(ScriptedPlayer):
    """Before each reply: how many rounds the records on disk hold (None: no file yet)."""

    def __init__(self, records, pause: float = 0.0, stop_at: int | None = None) -> None:
        super().__init__(SCRIPT)
        self.records, self.pause, self.stop_at = records, pause, stop_at
        self.seen: list[int | None] = []
        self.stopped = asyncio.Event()

    async def reply(self, episode, stream=None):
        if self.pause:
            await asyncio.sleep(self.pause)
        files = list(self.records.rglob("interactions.json"))
        self.seen.append(json.loads(files[0].read_text(encoding="utf-8"))["meta"]["round_count"] if files else None)
        if self.stop_at is not None and len(episode.turns) == self.stop_at:
            self.stopped.set()
            await asyncio.Event().wait()     # thinks forever: the run is cancelled here
        return await super().reply(episode, stream)


def rounds_on_disk(records) -> tuple[int, bool]:
    folder = next(records.rglob("instance_00000"))
    meta = json.loads((folder / "interactions.json").read_text(encoding="utf-8"))["meta"]
    return meta["round_count"], (folder / "completed.json").exists()


def test_quick_turns_wait_for_the_checkpoint_and_the_end_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "CHECKPOINT", 30.0)
    records = tmp_path / "records"
    player = Watching(records)
    episode, skipped = asyncio.run(play_episode(load_world(WORLDS / "house.yaml"), player, records))
    assert not skipped and episode.ended
    assert player.seen == [None] * len(SCRIPT)        # nothing rewritten while the turns came quickly
    assert rounds_on_disk(records) == (len(SCRIPT), True)


@pytest.mark.slow
def test_a_slow_model_call_finds_every_earlier_turn_on_disk(tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "CHECKPOINT", 0.1)
    records = tmp_path / "records"
    player = Watching(records, pause=0.5)              # the timer writes while the "model" thinks
    asyncio.run(play_episode(load_world(WORLDS / "house.yaml"), player, records))
    assert player.seen == list(range(len(SCRIPT)))
    assert rounds_on_disk(records) == (len(SCRIPT), True)


def test_a_cancelled_run_writes_the_turns_it_played(tmp_path, monkeypatch):
    monkeypatch.setattr(batch, "CHECKPOINT", 30.0)
    records = tmp_path / "records"
    player = Watching(records, stop_at=3)

    async def main():
        task = asyncio.create_task(play_episode(load_world(WORLDS / "house.yaml"), player, records))
        await player.stopped.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert player.seen == [None] * 4
    assert rounds_on_disk(records) == (3, False)
