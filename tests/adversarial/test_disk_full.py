"""A full disk mid-session costs no game state: play goes on, a warning says why, and the records
are whole again once there is room (issue 21)."""

import asyncio
import errno
import json

from conftest import WORLDS

from tui_adventure.keyboard.session import open_session


def test_a_full_disk_mid_session_loses_nothing(tmp_path, monkeypatch):
    import tui_adventure.records.recorder as recorder
    import tui_adventure.records.files as records

    session = open_session(WORLDS / "house.yaml", records=tmp_path / "r", saves=tmp_path / "s")
    real = records.write_atomic

    def full(path, data, durable=True):
        raise OSError(errno.ENOSPC, "No space left on device")

    async def play(lines):
        return [await session.submit_line(line) for line in lines]

    asyncio.run(play(["up", "north"]))
    monkeypatch.setattr(records, "write_atomic", full)    # whole files (write_json)
    monkeypatch.setattr(recorder, "write_atomic", full)   # the per-turn rewrites
    feedback = asyncio.run(play(["open jewellery box", "take brass key from jewellery box"]))
    assert all("No space left on device" in f.text and "play on" in f.text for f in feedback)
    assert "brass key" in feedback[-1].text.lower() or "take" in feedback[-1].text.lower()
    monkeypatch.setattr(records, "write_atomic", real)
    monkeypatch.setattr(recorder, "write_atomic", real)
    feedback = asyncio.run(play(["take lamp"]))
    assert "could not be written" not in feedback[0].text
    data = json.loads(next((tmp_path / "r").rglob("interactions.json")).read_text())
    assert len(data["turns"]) == 5                # the turns played while the disk was full are there
