"""Continuing an unfinished episode: its records read back into a ``Recorder``, its state rebuilt.

A person who quits mid-game and starts the same world again continues that
episode in the same folder rather than leaving it unfinished beside a new
one. Records keep no states: the engine is deterministic, so replaying the
recorded replies through a fresh episode rebuilds every state, and each
replayed observation is checked against the context the records say the
player was sent next, so a world file changed since is noticed rather than
continued into a different game. The pause goes into the records twice: a
game-master event ``session_resumed`` opens the next recorded turn, and the
meta lists every pause (``resumed``).
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

from .recorder import Recorder
from .files import DISCARDED, RecordsError, dumps_compact, encode_json, now, read_json, replies_of

RESUMED = "session_resumed"   # the game-master event that opens the first turn after a pause


def last_episode(root: Path, world, name: str, options: dict, skip=None) -> Recorder | None:
    """The newest episode folder of ``name``'s run and its numbered siblings (``name-2``, ...) for
    ``world``: the last one started, or None when none was. A run folder ``skip(run_dir)`` is true of
    (a study participant's, for a session not of that study) is passed over, never returned."""
    last = None
    n = 1
    while True:
        recorder = Recorder(root, world, name if n == 1 else f"{name}-{n}", **options)
        if not recorder.is_started():
            return last
        if skip is None or not skip(recorder.run_dir):
            last = recorder
        n += 1


def unfinished(recorder: Recorder) -> bool:
    """Played, left before its end: no completed.json, no error.json, and its interactions are there."""
    d = recorder.dir
    return (d / "interactions.json").exists() and not (d / "completed.json").exists() \
        and not (d / "error.json").exists()


def read_back(recorder: Recorder, episode, on_turn=None) -> dict:
    """Replay the folder's replies through ``episode`` (fresh; ``on_turn`` sees each replayed turn) and
    load its records into ``recorder`` (locked by the caller), so the next turn is appended as if the
    session had never stopped.

    Returns the pause: ``{"after_round", "paused_seconds", "at"}``. RecordsError says why the
    episode cannot be continued (unreadable files, a world that no longer plays the same).
    """
    data = read_json(recorder.dir / "interactions.json")
    if not isinstance(data, dict) or not isinstance(data.get("turns"), list):
        raise RecordsError(f"{recorder.dir}: not a clemcore interactions file")
    turns = data["turns"]
    replies = replies_of(data)
    if len(replies) != len(turns):
        raise RecordsError(f"{recorder.dir}: {len(turns)} rounds but {len(replies)} replies")
    contexts = [_context(turn) for turn in turns]
    if contexts and contexts[0] != episode.first_message:
        raise RecordsError(f"{recorder.dir}: its first message is not this world's (the world changed since)")
    for k, reply in enumerate(replies):
        turn = episode.submit(reply)
        if on_turn is not None:
            on_turn(turn)
        # every turn, the last included (no context follows it): what the game master logged of it, then
        # the context the player was sent next
        if (_played(turn) != _logged(turns[k])
                or (k + 1 < len(contexts) and contexts[k + 1] != (turn.observation or ""))):
            raise RecordsError(f"{recorder.dir}: turn {k + 1}{' (the last)' if k + 1 == len(turns) else ''} no longer"
                               " plays as recorded (the world or its records changed since)")
        if episode.ended:   # ended in play but its end never reached the disk: nothing to continue
            raise RecordsError(f"{recorder.dir}: its last turn ended the episode")
    calls = _calls(recorder.dir)
    meta = data.get("meta")
    if not isinstance(meta, dict):
        meta = {}
    recorder.turns = turns
    recorder.calls = calls if len(calls) == len(turns) else [{"round": k, "call": {}} for k in range(len(turns))]
    recorder.call_players = [_from(turn) for turn in turns]
    recorder.played_by = [_played_by(turn, recorder.player_name) for turn in turns]
    recorder.discarded = _discarded(recorder.dir)
    recorder._contexts = contexts
    recorder._pending_context = (episode.turns[-1].observation or "") if turns else episode.first_message
    recorder._markers = set()
    traced = sum(1 for turn in turns for e in turn if _kind(e) == "turns_discarded")
    for index, taken in enumerate(recorder.discarded[traced:], traced):   # taken back, then quit: trace still owed
        recorder._pending_events.append(recorder._gm("turns_discarded", {
            "kind": taken.get("kind"), "count": len(taken.get("turns") or []),
            "after_round": taken.get("after_round"), "file": DISCARDED, "index": index}))
    last = _last_timestamp(turns)
    paused = round((datetime.now() - last).total_seconds(), 3) if last is not None else None
    pause = {"after_round": len(turns), "paused_seconds": paused, "at": now()}
    recorder._pending_events.append(recorder._gm(RESUMED, pause))
    before = meta.get("resumed")
    if not isinstance(before, list):
        before = []
    recorder.meta_extra.update({k: v for k, v in meta.items() if k in ("shown", "seconds")},
                               resumed=[*before, pause])
    recorder._last_turn_at = time.monotonic()
    return pause


RECORDER_EVENTS = ("metadata", "turns_discarded", RESUMED)   # what the recorder adds to a turn, not the game


def _played(turn) -> str:
    """A replayed turn's game-master events as the records would hold them."""
    return dumps_compact(json.loads(encode_json([[kind, content] for kind, content in turn.events])))


def _logged(events: list) -> str:
    """The game-master events a recorded turn holds (the recorder's own left out), as ``_played`` gives them."""
    return dumps_compact([[e["action"].get("type"), e["action"].get("content")] for e in events
                          if isinstance(e, dict) and e.get("from") == "GM" and e.get("to") == "GM"
                          and isinstance(e.get("action"), dict) and _kind(e) not in RECORDER_EVENTS])


def _kind(event) -> str | None:
    action = event.get("action") if isinstance(event, dict) else None
    return action.get("type") if isinstance(action, dict) else None


def _context(turn: list) -> str:
    first = next((e for e in turn if _kind(e) == "send message"), None)
    return str(first["action"].get("content", "")) if first else ""


def _from(turn: list) -> str:
    response = next((e for e in turn if _kind(e) == "get message"), None)
    return str(response.get("from", "Player 1")) if response else "Player 1"


def _played_by(turn: list, default: str) -> str:
    response = next((e for e in turn if _kind(e) == "get message"), None)
    return str(response.get("played_by", default)) if response else default


def _calls(directory: Path) -> list[dict]:
    """Every player's calls, in round order (one file per player in a world of several)."""
    calls = []
    for path in sorted(directory.glob("player_*.requests.json")):
        doc = read_json(path)
        calls += [c for c in (doc.get("calls") or []) if isinstance(c, dict)] if isinstance(doc, dict) else []
    return sorted(calls, key=lambda c: c.get("round", 0) if isinstance(c.get("round"), int) else 0)


def _discarded(directory: Path) -> list[dict]:
    if not (directory / DISCARDED).exists():
        return []
    doc = read_json(directory / DISCARDED)
    items = doc.get("discarded") if isinstance(doc, dict) else None
    return [d for d in items if isinstance(d, dict)] if isinstance(items, list) else []


def _last_timestamp(turns: list) -> datetime | None:
    for turn in reversed(turns):
        for event in reversed(turn):
            try:
                return datetime.fromisoformat(str(event["timestamp"]))
            except (KeyError, TypeError, ValueError):
                continue
    return None
