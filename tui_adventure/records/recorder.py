"""Writing one episode's clemcore records as it is played (the formats and their reading are in
``records.py``).

Every turn rewrites ``interactions.json`` and ``player_1.requests.json`` (``player_K`` per
player in a world of several; temp file + rename, each turn and call encoded once; a batch
rewrites at most once a second, see ``checkpoint``), a turn taken back by
hand goes to ``DISCARDED`` with a trace in the next turn, and the end writes
``completed.json`` or clemcore's ``error.json``. The folder is held by a lock
while the episode is played, and a run folder refuses a run that asks otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from pathlib import Path

from ..engine.names import check_name, inside
from ..engine.snapshot import write_atomic
from ..zmachine.story import is_story_path
from .files import (
    CLEM_VERSION, DISCARDED, MARKERS, POINTER, Busy, FolderLock, OtherRun, RecordsError, dumps_compact, encode_json,
    now, real_path, run_json, scrub, write_json,
)


class Recorder:
    def __init__(self, root: str | Path, world, player_name: str, *, backend: str = "_player_programmatic",
                 gen_args: dict | None = None, secrets: tuple = (), run_facts: dict | None = None,
                 seats: tuple[str, ...] = (), checkpoint: float = 0.0) -> None:
        """``run_facts``: how a model run asks (mode, tools, tool choice), kept in its model_spec;
        a folder holding a run that asked otherwise is refused rather than resumed.

        ``seats``: in a world of several players, who plays each (in the world's turn order). The
        records then name them Player 1..n as clemcore's multi-player games do: each turn's messages
        go between the game master and the player who moved, and each player's calls go to its
        own ``player_K.requests.json``.

        ``checkpoint``: rewrite the files at most this often (seconds) while the episode runs.
        Each rewrite renames a new file over the old one, which costs about a third of a
        millisecond of kernel time per file here, as much as the rest of a fast model turn.
        A turn not written at once is written by a timer on the running event loop after
        ``checkpoint`` seconds (or by the next write), so a crash loses at most the turns of the
        last ``checkpoint`` seconds; the end of an episode is always written. 0 (people, the
        app): every turn at once.
        """
        self.world = world
        scene = world.scene
        self.order: tuple[str, ...] = tuple(scene.spec.players) if scene is not None else ()
        self.seats = tuple(seats) if len(seats) == len(self.order) else (player_name,) * len(self.order)
        self.secrets = tuple(secrets)    # values never written: the model's key, wherever a response echoes it
        self.player_name = player_name
        self.root = Path(root)
        meta = world.meta
        self.game_name = check_name(world.game, "the game name")
        self.experiment = check_name(meta.get("experiment") or world.game, "the experiment name")
        self.game_id = int(meta.get("game_id", 0))
        self.run_dir = inside(self.root, check_name(player_name, "the run name (--name, or the model's name)"))
        self.dir = inside(self.run_dir, self.game_name, self.experiment, f"instance_{self.game_id:05d}")
        self.model_spec = {"model_name": player_name, "backend": backend, **(run_facts or {})}
        self.played_by: list[str] = []   # per recorded turn: who played it (a model, "human", "oracle"...)
        self.gen_args = gen_args or {"temperature": 0.0, "max_tokens": 300}
        self.turns: list[list[dict]] = []
        self.calls: list[dict] = []
        self.unwritten: str | None = None   # why the last write failed (disk full...); None when all is on disk
        self.discarded: list[dict] = []     # turns taken back by hand, kept in DISCARDED
        self._pending_events: list[dict] = []   # game-master events for the next recorded turn
        self._turn_texts: list[str] = []   # self.turns, each already encoded (per-turn rewrites)
        self._call_texts: dict[str, list[str]] = {}   # per player label: its calls, each already encoded
        self.call_players: list[str] = []   # per call: the label of the player who made it
        self.completed = False
        self.ended_by: str | None = None   # an end with no reply to judge ("context_exhausted")
        self.meta_extra: dict = {}   # what a front end adds to the meta (what a person was shown, a study's facts)
        self.checkpoint = checkpoint
        self._last_turn_at = float("-inf")   # time.monotonic() of the last turn recorded (or the start)
        self._dirty = False                # turns recorded but not yet on disk (checkpoint > 0)
        self._timer: asyncio.TimerHandle | None = None
        self._landing: asyncio.Future | None = None   # the last write, on a worker thread (see _land)

    # -- paths and resume ------------------------------------------------
    def is_done(self) -> bool:
        return (self.dir / "completed.json").exists()

    def is_started(self) -> bool:
        """Some record of this episode exists (finished, errored or left unfinished)."""
        return (self.dir / "interactions.json").exists() or (self.dir / "error.json").exists()

    def lock(self) -> bool:
        """Hold this episode's folder for this process; False when another process holds it."""
        try:
            self._lock = FolderLock(self.dir, "this episode").acquire()
        except Busy:
            return False
        self._markers = set()
        with os.scandir(self.dir) as entries:
            for entry in entries:
                if entry.name.startswith(".") and entry.name.endswith(".tmp"):
                    with contextlib.suppress(FileNotFoundError):   # left by a process killed mid-write
                        os.unlink(entry.path)                      # ours now, and dead
                elif entry.name in MARKERS:
                    self._markers.add(entry.name)
        return True

    def unlock(self) -> None:
        lock = getattr(self, "_lock", None)
        if lock is not None:
            lock.release()

    # -- writing -----------------------------------------------------------
    def start(self, episode) -> None:
        if getattr(self, "_lock", None) is None and not self.lock():
            raise Busy(f"{self.dir}: another adventure process is writing this episode; wait for it to end,"
                       " or use another --records folder or --name")
        models = {"0": {"model_spec": self.model_spec, "gen_args": self.gen_args}}
        self.refuse_other_run()
        run_file = self.run_dir / "run.json"
        try:
            run = run_json(run_file)
        except RecordsError:
            run = {}
        games = run.get("games")
        if not isinstance(games, dict):
            games = {}
        # Written at every episode's start, so only when they change, and not fsynced (milliseconds an
        # episode): until completed.json is written durably, a lost start only means playing it again.
        if self.game_name not in games:
            run = {"clem_version": CLEM_VERSION, "created": now(), "player_models": models, **run,
                   "games": {**games, self.game_name: {"game_path": "tui-adventure"}}}
            write_json(run_file, run, final=False)
        exp_file = self.dir.parent / "experiment.json"
        if not exp_file.exists():
            write_json(exp_file, {"name": self.experiment, "timestamp": now(), "game_name": self.game_name,
                                  "player_models": models}, final=False)
        write_json(self.dir / "instance.json", self.instance_dict(), final=False)
        self.write_pointer()
        for stale in self._markers:   # an earlier run's end, found by lock()
            (self.dir / stale).unlink(missing_ok=True)
        self._pending_context = episode.first_message
        self._contexts: list[str] = []     # the context of each recorded turn, for undo
        self._last_turn_at = time.monotonic()   # the empty episode waits like a quick turn
        self._checkpoint()

    def clash(self) -> str | None:
        """Why this run cannot go into its folder, or None: the folder holds a run that asked
        otherwise (a text-mode run resumed in tool mode, or the reverse, would mix two
        experiments under one name and skip episodes it never played)."""
        try:
            before = run_json(self.run_dir / "run.json")["player_models"]["0"]["model_spec"]
        except (OSError, RecordsError, KeyError, TypeError):
            return None
        if not isinstance(before, dict):
            return None
        # the tool choice asked for tells runs apart (records before issue 34 name only that one);
        # the one used is what the server took
        before, mine = ({**spec, **({"tool_choice": spec["tool_choice_asked"]} if "tool_choice_asked" in spec else {})}
                        for spec in (before, self.model_spec))
        keys = [k for k in ("mode", "tool_choice") if k in before and k in mine and before[k] != mine[k]]
        if not keys:
            return None
        def said(spec):
            return ", ".join(f"{k} {spec.get(k)!r}" for k in keys)
        return (f"{self.run_dir} holds a run with {said(before)}; this one has {said(mine)}:"
                " give it another name (--name) or --records folder")

    def refuse_other_run(self) -> None:
        """OtherRun when ``clash()`` says so (checked before anything is skipped or written)."""
        problem = self.clash()
        if problem:
            raise OtherRun(problem)

    def write_pointer(self) -> None:
        """Where the world file is, for ``adventure replay`` (clemcore's tools ignore this file)."""
        path = Path(str(self.world.path or ""))
        if self.world.meta.get("packaged"):   # clembench/<experiment>/<game_id>: found without a file
            write_json(self.dir / POINTER, {"world": self.world.meta["packaged"]}, final=False)
        elif (path.suffix in (".yaml", ".yml") or is_story_path(path)) and path.exists():
            write_json(self.dir / POINTER, {"world": real_path(str(path))}, final=False)

    def instance_dict(self) -> dict:
        return instance_of(self.world, self.game_id)

    def log_turn(self, episode, turn, call: dict | None = None, played_by: str | None = None,
                 secrets: tuple = ()) -> None:
        """Record one turn and rewrite the files: the two messages, ``metadata``, then the game
        master's events exactly as the episode logged them.

        ``call`` is what a model player kept of its request (``manipulated_prompt_obj``,
        ``raw_response_obj``, ``call_start``, ``call_duration``, ``request_options``), scrubbed
        before writing. ``played_by`` names who played the turn (a person taking over from a
        model is not the model): the response event and the call say so, and an episode with
        more than one player is marked ``mixed``.
        """
        call = call or {}
        played_by = played_by or self.player_name
        if secrets:
            self.secrets = tuple(dict.fromkeys(self.secrets + tuple(secrets)))
        raw_response, call_start, call_duration = (call.get("raw_response_obj"), call.get("call_start"),
                                                   call.get("call_duration"))
        round_index = turn.index - 1
        label = self.label(getattr(turn, "actor", None))
        response = self._msg(label, "GM", "get message", turn.reply, "response")
        if played_by != self.player_name:   # a run's own turns stay exactly upstream's shape
            response["played_by"] = played_by
        events = [self._msg("GM", label, "send message", self._pending_context, "context"), response,
                  self._gm("metadata", f"Round: {round_index}")]
        events.extend(self._pending_events)
        self._pending_events = []
        events.extend(self._gm(kind, content) for kind, content in turn.events)
        self.turns.append(events)
        self.played_by.append(played_by)
        self.call_players.append(label)
        options = call.get("request_options")
        if options and "tool_choice" in options and self.model_spec.get("tool_choice") != options["tool_choice"]:
            self._used_tool_choice(options["tool_choice"])
        extra = {k: call[k] for k in ("attempts", "usage_estimated") if call.get(k)}
        if "usage_estimated" in extra:
            extra["usage_estimated"] = {**extra["usage_estimated"], "estimated": True}
        self.calls.append({"round": round_index, "call": {
            "timestamp": now(),
            "manipulated_prompt_obj": scrub(call.get("manipulated_prompt_obj")
                                            or {"role": "user", "content": self._pending_context}, self.secrets),
            "raw_response_obj": scrub(raw_response or {}, self.secrets) | {"clem_player": {
                **({"call_start": str(call_start), "call_duration": str(call_duration)} if call_start else {}),
                **({"request_options": options} if options else {}), **extra,
                "response": turn.reply, "model_name": played_by}}}})
        self._contexts.append(self._pending_context)
        self._pending_context = turn.observation or ""
        self._checkpoint()

    def _used_tool_choice(self, choice) -> None:
        """The tool choice the calls used (a server that refused ``required`` took the tool by name):
        the model_spec of interactions.json, run.json and experiment.json says what was used."""
        self.model_spec["tool_choice"] = choice
        for path in (self.run_dir / "run.json", self.dir.parent / "experiment.json"):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                data["player_models"]["0"]["model_spec"]["tool_choice"] = choice
            except (OSError, ValueError, KeyError, TypeError):
                continue
            write_json(path, data, final=False)

    def undo(self, episode, turns: int, kind: str = "undo") -> None:
        """Take the last ``turns`` recorded turns out of the episode (taken back by hand: ``undo``,
        ``restore``, ``restart`` or a jump back in the debug screen).

        The episode stays valid (what the player knows lives in the episode,
        which keeps it per turn, so the next turn is recorded as if these never
        happened), but nothing is hidden: the turns go to ``DISCARDED`` beside
        the records, and the next recorded turn opens with a game-master event
        ``turns_discarded`` that says how many, by what and where they are.
        """
        n = min(turns, len(self.turns))
        if n <= 0:
            return
        if getattr(self, "_lock", None) is None or self._lock.fh is None:
            self.lock()   # a finished episode taken back is being written again
        taken = {"kind": kind, "timestamp": now(), "after_round": len(self.turns) - n,
                 "turns": self.turns[-n:], "calls": self.calls[-n:]}
        for _ in range(n):
            self.turns.pop()
            self.calls.pop()
            self.call_players.pop()
            self.played_by.pop()
            self._pending_context = self._contexts.pop()
        self.discarded.append(taken)
        self._write_file(DISCARDED, {"discarded": self.discarded})
        self._pending_events.append(self._gm("turns_discarded", {
            "kind": kind, "count": n, "after_round": taken["after_round"], "file": DISCARDED,
            "index": len(self.discarded) - 1}))
        self.completed = False
        for stale in MARKERS:
            (self.dir / stale).unlink(missing_ok=True)
        self._write()

    def restart(self, episode, kind: str = "restart") -> None:
        """A new episode in the same folder: every turn so far is discarded, with the trace ``undo`` leaves."""
        self.undo(episode, len(self.turns), kind)
        self._pending_context = episode.first_message
        self._contexts = []
        self._write()

    def flush(self) -> None:
        """Write what the last checkpoint left unwritten (the timer's job; callable any time)."""
        self._timer = None
        if self._dirty:
            self._write()

    def _checkpoint(self) -> None:
        """A turn that came ``checkpoint`` seconds or more after the one before is written at once
        (a model that takes its time costs nothing); quicker ones wait for the timer."""
        now = time.monotonic()
        quick, self._last_turn_at = now - self._last_turn_at < self.checkpoint, now
        if not quick:
            self._write()
            return
        self._dirty = True
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:   # no loop to wake us: write now
                self._write()
                return
            self._timer = loop.call_later(self.checkpoint, self.flush)

    def finish(self, episode) -> None:
        self.completed = True
        self._land("completed.json", {"timestamp": now()})

    def end_early(self, episode, reason: str, message: str) -> None:
        """The episode ended without a reply to judge (the model's context is full): a game-master
        event ``reason`` and the ``game_result`` close the last recorded round, and the episode is
        complete (played, and scored as aborted), so a rerun does not repeat what cannot succeed."""
        events = [self._gm(reason, scrub(message, self.secrets)),
                  self._gm("game_result", {"goal_states_achieved": list(episode.goals),
                                           "game_successfully_finished": episode.finished})]
        self.ended_by = reason
        self.meta_extra["ended_because"] = scrub(message, self.secrets)   # the server's words, even before a turn
        if self.turns:   # before the first reply there is no round to close: the meta says it alone
            self.turns[-1].extend(self._pending_events + events)
        self._pending_events = []
        self.finish(episode)

    def error(self, exc: BaseException) -> None:
        """The episode failed (a backend gave up): clemcore's error.json, and the turns so far."""
        self._land("error.json", {"timestamp": now(), "error": type(exc).__name__,
                                  "message": scrub(str(exc), self.secrets)})

    def _land(self, marker: str, data: dict) -> None:
        """The episode's last write: every file durable, then ``marker`` (completed.json or
        error.json), then the folder synced once and the lock released.

        The files are encoded here; with ``checkpoint`` set (a batch on an event loop) they reach
        the disk on a worker thread, because each fsync holds the caller for a millisecond or
        more of I/O, and on the loop that stalled every other episode in flight (a sixth of a
        batch's time). ``settled()`` waits for it; until then ``unwritten`` is not final.
        """
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        files = self._encoded() + [(self.dir / marker, encode_json(data))]
        self._dirty = False   # the files above hold every turn: nothing for a flush to add
        loop = None
        if self.checkpoint > 0:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                pass
        if loop is None:
            self._write_final(files)
        else:
            self._landing = loop.run_in_executor(None, self._write_final, files)

    def _write_final(self, files: list[tuple[Path, bytes | None]]) -> None:
        try:
            for path, data in files:
                if data is None:
                    path.unlink(missing_ok=True)
                else:   # durable; the folder is synced once, after the marker
                    write_atomic(path, data, durable=True, sync_dir=path == files[-1][0])
        except OSError as exc:
            self.unwritten = f"{path.name}: {exc.strerror or exc}"
            self._dirty = True   # a later flush tries again
            return
        self.unwritten = None
        self.unlock()

    def _write_file(self, name: str, data) -> bool:
        try:
            write_json(self.dir / name, data)
        except OSError as exc:
            self.unwritten = f"{name}: {exc.strerror or exc}"
            return False
        return True

    async def settled(self) -> None:
        """Return once the episode's last write (if any) is on the disk or has failed."""
        landing, self._landing = self._landing, None
        if landing is not None:
            await asyncio.shield(landing)

    # -- pieces --------------------------------------------------------------
    def label(self, actor: str | None) -> str:
        """The records' name for a player: ``Player K`` by turn order (``Player 1`` alone)."""
        return f"Player {self.order.index(actor) + 1}" if actor in self.order else "Player 1"

    def _players(self) -> dict:
        players = {"GM": {"game_role": "Game Master", "model_name": "programmatic"}}
        if not self.order:
            return players | {"Player 1": {"game_role": "Adventurer", "model_name": self.player_name}}
        return players | {f"Player {k}": {"game_role": f"Adventurer ({pid})", "model_name": seat}
                          for k, (pid, seat) in enumerate(zip(self.order, self.seats), 1)}

    @staticmethod
    def _msg(frm: str, to: str, kind: str, content, label: str) -> dict:
        return {"from": frm, "to": to, "timestamp": now(), "action": {"type": kind, "content": content, "label": label}}

    @staticmethod
    def _gm(kind: str, content) -> dict:
        return {"from": "GM", "to": "GM", "timestamp": now(), "action": {"type": kind, "content": content}}

    def _write(self) -> bool:
        """Rewrite the episode's files; False (and ``unwritten`` says why) when the disk refuses.

        A full or failing disk must not cost the game in play: the front end
        says so and plays on, and every later write rewrites the whole episode,
        so nothing is lost once there is room again.
        """
        try:
            for path, data in self._encoded():
                if data is None:
                    path.unlink(missing_ok=True)
                else:
                    write_atomic(path, data, durable=False)
        except OSError as exc:
            self.unwritten = f"{exc.strerror or exc}"
            return False
        self.unwritten = None
        self._dirty = False
        return True

    def _encoded(self) -> list[tuple[Path, bytes | None]]:
        """Each file of the episode as bytes (None: a file that must not exist)."""
        models = {"0": {"model_spec": self.model_spec, "gen_args": self.gen_args}}
        meta = {"game_name": self.game_name, "experiment_name": self.experiment, "game_id": self.game_id,
                "results_folder": self.player_name, "clem_version": CLEM_VERSION,
                "round_count": len(self.turns), "completed": self.completed}
        if self.ended_by:
            meta["ended_by"] = self.ended_by
        meta.update({k: v for k, v in self.meta_extra.items() if k not in meta})
        players = sorted(set(self.played_by))
        if players and players != [self.player_name]:   # turns played by someone other than the run's player
            meta["played_by"] = {p: self.played_by.count(p) for p in players}
            meta["mixed"] = len(players) > 1
        interactions = {
            "meta": meta, "player_models": models,
            "players": self._players(),
            "turns": self.turns,
            "adventure_info": adventure_info(self.world),
        }
        files: list[tuple[Path, bytes | None]] = [
            (self.dir / "interactions.json", self._listed(interactions, "turns", self._turn_texts))]
        labels = [f"Player {k}" for k in range(1, len(self.order) + 1)] or ["Player 1"]
        for k, label in enumerate(labels):
            path = self.dir / f"{label.lower().replace(' ', '_')}.requests.json"
            calls = self.calls if len(labels) == 1 else [c for c, who in zip(self.calls, self.call_players)
                                                         if who == label]
            if not calls and len(labels) > 1:   # as clemcore: a player who never made a request has no file
                files.append((path, None))
                continue
            seat = self.seats[k] if self.order else self.player_name
            requests = {"meta": {"game_name": self.game_name, "experiment_name": self.experiment,
                                 "game_id": self.game_id, "player_name": label,
                                 "game_role": self._players()[label]["game_role"], "model_name": seat,
                                 "round_count": len(self.turns), "completed": self.completed},
                        "calls": calls}
            files.append((path, self._listed(requests, "calls", self._call_texts.setdefault(label, []))))
        return files

    @staticmethod
    def _listed(document: dict, key: str, cache: list[str]) -> bytes:
        """``document`` as compact JSON, its list ``key`` from ``cache``: each turn and call is
        serialised once, when it is new, so a write costs O(the new turn) in the encoder rather
        than re-encoding the whole episode (quadratic over an episode otherwise)."""
        items = document[key]
        del cache[len(items):]
        if cache:
            cache.pop()   # the newest item may still change: encode it afresh every time
        cache.extend(dumps_compact(item) for item in items[len(cache):])
        parts = (f'{dumps_compact(k)}:{"[" + ",".join(cache) + "]" if k == key else dumps_compact(v)}'
                 for k, v in document.items())
        return ("{" + ",".join(parts) + "}").encode("utf-8", "backslashreplace")


def instance_of(world, game_id: int) -> dict:
    """An episode's instance.json: upstream's instance for an imported clembench world (with the turn
    limit it was played with), else the world's file (absolute, so that the scorer finds it from
    anywhere), title, turn limit, par and goals."""
    if "instance" in world.meta:
        instance = world.meta["instance"]
        if instance.get("max_turns", 50) != world.max_turns:   # played with another turn limit: say which
            instance = {**instance, "max_turns": world.max_turns}
        return instance
    path = Path(world.path)
    instance = {"game_id": game_id, "world": str(path.resolve() if path.exists() else path), "title": world.title,
                "max_turns": world.max_turns, "par": world.par, "goal_state": [str(g) for g in world.goals]}
    if "zmachine" in world.meta:
        instance["zmachine"] = world.meta["zmachine"]
    return instance


def adventure_info(world) -> dict:
    """The top-level ``adventure_info`` of an interactions.json (what upstream's scorer reads)."""
    info = {"variant": world.meta.get("variant", "basic"), "max_turns": world.max_turns,
            "optimal_turns": world.meta.get("optimal_turns", world.par), "goal_count": len(world.goals)}
    if "zmachine" in world.meta:   # a story file: scored by its own score (records/scorer.py)
        info["zmachine"] = world.meta["zmachine"]
    return info
