"""A play session at a keyboard: what the Textual app and the REPL share.

Both front ends let a person type lines that are either game commands or
meta-commands (undo, restart, save, restore, help, score, quit), hand the
keyboard to a model and take it back, complete words, keep a history, and show
the same panels. All of that lives here once, over the one episode loop
(``episode.play_turn``), so the two front ends differ only in how they draw.

Meta-commands take no game time and are never sent to the player's records as
replies. ``undo`` takes turns back out of the records too (the episode is
recorded as if they were never played); ``restore`` replays a save's commands
through a fresh episode, so the records stay a valid episode from the start.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

from ..records.recorder import Recorder
from ..records.files import foreign_to
from ..engine.metrics import moves, moves_over_par, turn_ratio
from .figures import RESEARCHER, Panels, ProgressFigures, Visibility
from .panel_data import game_panels, world_panels
from ..gamemaster.voices import Voices
from .completion import GameWords, Words
from .continuing import continue_last
from . import meta_commands
from .meta_commands import META_COMMANDS, Feedback
from .history import History, world_key
from ..engine.snapshot import load_save
from ..zmachine.saves import load_story
from ..engine.world import World
from ..zmachine.game import StorySource
from ..gamemaster.episode import Episode, Turn, play_turn
from ..players import Reply, recorder_options
from ..players.base import as_reply
from ..engine.text import MAX_COMMAND, plural

PROGRESS_SECONDS = 3.0   # the longest one progress search may run (in a worker) before par shows "?"


class Session:
    def __init__(self, world: World | StorySource, player=None, *, records: str | Path | None = "records", name: str | None = None,
                 saves: str | Path = "saves", history: History | None = None, show: Visibility = RESEARCHER,
                 time_limit: float | None = None, meta: dict | None = None, resume: bool = False) -> None:
        """``world``: one of our worlds or a story file's source (what ``catalog.open_world`` gives);
        ``records=None`` plays without writing records (a replay being stepped through); ``show`` is what
        the person may see beyond a model's prompt; ``time_limit`` is seconds per episode (a study's);
        ``meta`` goes into the records' meta as it is (a study's facts); ``resume``: a person's own run
        whose last episode of this world is unfinished continues it (``play``, ``repl``; ``--new``: off)."""
        from ..players.human import HumanPlayer

        self.world = world
        self.records = Path(records) if records is not None else None
        self.saves = Path(saves) / world_key(world)   # one folder per world: names never clash across worlds
        self.human = HumanPlayer()
        self.player = player if player is not None else self.human
        self.human_run = player is None   # the records' run is the person's own, not a model's they may take over
        self.record_name = name or self.player.name
        self.history = history if history is not None else History.for_world(world)
        self._words: Words | GameWords | None = None
        self.show = show
        self.time_limit = time_limit
        self.record_meta = dict(meta or {})
        self.voices = Voices.for_world(world)   # model-voiced characters (ValueError at once when one cannot be)
        self._tracker = None
        self._search = threading.RLock()   # the planner's searches run in worker threads, one at a time
        self.recorder: Recorder | None = None
        self.seconds_before = 0.0   # the time played in earlier sittings of a continued episode
        self.changed_by_turn = False   # the last thing done was a turn (not undo or restore): panels show its change
        self.continued = ""   # what the front end says first when the last unfinished episode was continued
        self.new_episode(resume=resume and player is None)

    # -- episodes -----------------------------------------------------------
    def new_episode(self, resume: bool = False) -> None:
        """A fresh episode; never overwrites another's records (a second session becomes ``human-2``).
        With ``resume``, the run's last episode of this world continues when it is unfinished."""
        if self.recorder is not None:
            self.recorder.unlock()
        self._new_game()
        self.recorder = None
        self.seconds_before = 0.0
        self.begin()
        if self.records is None:
            return
        spec = recorder_options(self.player, self.episode)
        if resume:
            if continue_last(self, spec):
                return
        recorder = Recorder(self.records, self.world, self.record_name, **spec)
        n = 1
        # a session never overwrites another's records: finished, errored, unfinished or in use elsewhere
        # nor takes a study participant's folder (participant 2 is human-2 too)
        while recorder.is_started() or recorder.clash() or self.foreign(recorder.run_dir) or not recorder.lock():
            n += 1
            recorder = Recorder(self.records, self.world, f"{self.record_name}-{n}", **spec)
        self.recorder = recorder
        self._note_meta()
        self.recorder.start(self.episode)

    def foreign(self, run_dir: Path) -> bool:
        """``run_dir`` is another study's participant's (``foreign_to``): never continued nor written here."""
        return foreign_to(run_dir, self.record_meta.get("study"))

    def _new_game(self) -> None:
        """A new episode, the last one's game let go (a story file's interpreter)."""
        old = getattr(self, "episode", None)
        self.episode = Episode(self.world, voices=self.voices)
        if old is not None:
            old.play.close()

    @property
    def playable(self):
        """The game through the one game interface (``games.interface.Playable``)."""
        return self.episode.play

    @property
    def words(self) -> "Words | GameWords":
        """What can be typed: our world's verbs and names, or a story file's usual verbs."""
        if self._words is None:
            self._words = Words(self.world) if self.game is not None else GameWords()
        return self._words

    def room_id(self) -> str | None:
        """Where the player is: our world's room id, or the location a story file shows."""
        world = self.world   # our engine's world: self.game is its game
        return world.style.player_room(self.game.state) if isinstance(world, World) else self.playable.location()

    def begin(self) -> None:
        """The episode's clocks and the rooms seen so far start now."""
        self.visited = {self.room_id()}
        self.started = time.monotonic()
        self.shown_now()

    def shown_now(self) -> None:
        """The player has what they need to answer from now on: the time a command takes counts from
        here (front ends call it again when a world is put on screen after a pause)."""
        self._shown_at = (datetime.now(), time.monotonic())
        if not self.episode.turns:
            self.started = self._shown_at[1]

    def _note_meta(self) -> None:
        """What the records' meta says of this session: what was shown, how long the episode took."""
        if self.recorder is not None:
            self.recorder.meta_extra.update(self.record_meta, shown=self.show.shown(),
                                            seconds=round(self.seconds_before + time.monotonic() - self.started, 3))

    @property
    def game(self):
        return self.episode.game

    @property
    def is_human(self) -> bool:
        return self.player is self.human

    def set_player(self, player) -> None:
        """Hand the keyboard to ``player`` (a model, the oracle...) or back to the human."""
        self.player = player if player is not None else self.human

    # -- one turn -----------------------------------------------------------
    async def play(self, stream=None) -> Turn:
        """One turn of the current (non-human) player; PlayerFailed when its backend gave up."""
        self.changed_by_turn = True
        self._note_meta()
        turn = await play_turn(self.episode, self.player, self.recorder, stream)
        self._after_turn()
        return turn

    async def submit_line(self, line: str) -> Feedback:
        """A line the person typed: a meta-command, or a command played as a turn."""
        text = line.strip()
        if not text:
            return Feedback("meta", "")
        if len(text) > MAX_COMMAND:   # refused before it is played or kept anywhere (history, records, saves)
            return Feedback("error", f"That line is {len(text)} characters long; a command has at most"
                                     f" {MAX_COMMAND}. Type a shorter one.")
        self.history.add(text)
        word, _, rest = text.partition(" ")
        if word.lower() in META_COMMANDS:
            return await self.meta(word.lower(), rest.strip())
        if self.episode.ended:
            return Feedback("error", "The episode has ended. " + (
                "Type undo, restart or quit." if self.show.undo else "Type quit to go on."))
        if self.out_of_time():
            return Feedback("turn", f"[{self.outcome_text()}]")
        return await self.submit_reply(line if line.lstrip().startswith(">") else self.human_reply(text))

    @staticmethod
    def echo(line: str) -> str:
        """A typed line as the transcript shows it: ``> go north``, once, whether or not the person typed
        the ``>`` themselves (as clembench's prompt tells them to)."""
        text = line.strip()
        return "> " + (text[1:].lstrip() if text.startswith(">") else text)

    def time_left(self) -> float | None:
        """Seconds left of the time limit (None: no limit)."""
        if self.time_limit is None:
            return None
        return self.time_limit - (time.monotonic() - self.started)

    def out_of_time(self) -> bool:
        """End the episode if its time limit has run out (a command typed too late is not played):
        recorded as ended by ``time_limit``, played and aborted, like a turn limit."""
        left = self.time_left()
        if left is None or left > 0 or self.episode.ended:
            return self.episode.ended_by == "time_limit"
        self.episode.end_early("time_limit")
        if self.recorder is not None:
            self._note_meta()
            self.recorder.end_early(self.episode, "time_limit",
                                    f"the time limit of {self.time_limit:g} s for this episode ran out")
        return True

    def human_reply(self, text: str) -> str:
        """A typed command in this episode's reply format, holding only what the person typed.

        In clembench's planning variant a person writes the plan after a bar
        (``go hallway | go kitchen, take apple``); without one the plan line is
        recorded empty, never with actions the person did not type.
        """
        if not self.episode.planning:
            return as_reply(self.episode, text)
        command, bar, plan = text.partition("|")
        actions = ", ".join(a.strip() for a in plan.split(",")) if bar else ""
        return f"> {command.strip()}\nNext actions: {actions}"

    async def submit_reply(self, reply: str) -> Feedback:
        """A reply played verbatim, format rules and all (typed, or a recorded episode replayed)."""
        if self.episode.ended:
            return Feedback("error", "The episode has ended.")
        self.changed_by_turn = True
        shown_at, shown_mono = self._shown_at
        call = {"call_start": shown_at, "call_duration": timedelta(seconds=round(time.monotonic() - shown_mono, 3))}
        self._note_meta()
        # in a person's own run (play, a study) the person is the run's player; taking over from a model, "human"
        who = self.recorder.player_name if self.human_run and self.recorder is not None else "human"
        turn = await play_turn(self.episode, _Line(reply, who, call), self.recorder)
        self._after_turn()
        return Feedback("turn", self.turn_text(turn), turn)

    def _after_turn(self) -> None:
        self.visited.add(self.room_id())
        self.shown_now()

    def close(self) -> None:
        """The session's writer ends (the front end is closing): the episode folder's lock goes with it."""
        if self.recorder is not None:
            self.recorder.unlock()
        self.playable.close()

    def records_summary(self) -> str:
        """Where this session's records went, said when the app or the REPL ends."""
        if self.recorder is None:
            return "no records were written (--records was off)"
        ep, rec = self.episode, self.recorder
        state = "finished" if rec.completed else ("unfinished: adventure score leaves it out" if ep.turns else "empty")
        renamed = (f" (a new episode folder: {rec.player_name}, since {self.record_name} already holds one)"
                   if rec.player_name != self.record_name and not self.continued.startswith("[continuing") else "")
        return f"records: {rec.dir} ({plural(len(ep.turns), 'turn')}, {state}){renamed}"

    def records_warning(self) -> str:
        """What to tell the person when the records could not be written (a full disk): the game goes on."""
        if self.recorder is None or self.recorder.unwritten is None:
            return ""
        return (f"[the records could not be written ({self.recorder.unwritten}); play on: every turn writes"
                " the whole episode again, so nothing is lost once there is room]")

    def turn_text(self, turn: Turn) -> str:
        """The observation, and the episode's end when this turn ended it."""
        parts = [turn.observation] if turn.observation else []
        seat = self.episode.whose_turn()
        if seat is not None and seat != turn.actor and not self.episode.ended:
            # hot-seat: the next seat reads where it stands, not the room the last one left
            parts.append(self.look())
        if (turn.result is not None and turn.result.done and turn.result.action != "done" and not self.episode.ended
                and self.show.score):
            parts.append("[All goals achieved! Type done to end the episode, or play on.]")
        if turn.invalid_format:
            parts.append(f"[invalid reply: {turn.invalid_format}; the episode is aborted]")
        if self.episode.ended:
            parts.append(f"[{self.outcome_text()}]")
        if self.records_warning():
            parts.append(self.records_warning())
        return "\n".join(parts)

    def outcome_text(self) -> str:
        ep = self.episode
        o = ep.outcome
        if ep.error is not None:
            return f"the player failed: {ep.error}"
        if not self.show.score:   # the result would tell a study's participant how they did
            return "the time limit ran out: this world is over" if ep.ended_by == "time_limit" else "this world is over"
        if ep.lost is not None:
            return f"lost after {plural(o.turns, 'turn')}: {ep.lost}"
        reached = (f"score {o.goals_achieved} of {o.goal_count or '?'}" if o.scored
                   else f"{o.goals_achieved}/{plural(o.goal_count, 'goal')}")
        if ep.ended_by == "time_limit":
            return f"aborted: time limit reached; {reached}"
        if o.aborted:
            why = "turn limit reached" if o.turn_limit_reached else f"invalid reply ({o.invalid_format})"
            return f"aborted: {why}; {reached}"
        verdict = "won" if o.success else "ended"
        return f"{verdict} after {plural(o.turns, 'turn')}: {reached}, main score {o.main_score:g}"

    # -- meta-commands (meta_commands.py) --------------------------------------
    async def meta(self, word: str, arg: str = "") -> Feedback:
        self.changed_by_turn = False   # after undo or restore the panels show no "last change"
        return await meta_commands.run(self, word, arg)

    def undo(self, n: int = 1, kind: str = "undo") -> int:
        done = self.episode.undo(n)
        if done and self.recorder is not None:
            self.recorder.undo(self.episode, done, kind)
        return done

    def restart(self, kind: str = "restart") -> None:
        """A fresh episode recorded in the same folder, the turns so far kept as discarded; after an
        episode that ended (its records are final) the new one gets a folder of its own."""
        if self.recorder is None or self.episode.ended:
            self.new_episode()
            return
        self._new_game()
        self.begin()
        self.recorder.restart(self.episode, kind)

    async def restore(self, name: str) -> None:
        """Replay the save's commands through a fresh episode (checked first: a bad save changes nothing)."""
        world = self.world
        commands = (load_save(name, world, self.saves).commands if isinstance(world, World)
                    else load_story(world, name, self.saves))   # a story file's save: its commands
        self.restart("restore")
        for command in commands:
            if self.episode.ended:
                break
            await play_turn(self.episode, _Line(as_reply(self.episode, command), "restored"), self.recorder)
    def look(self) -> str:
        """The room as the player reads it (a story file: where it says the player is)."""
        world = self.world
        return world.style.room_description(self.game.state) if isinstance(world, World) else self.playable.location()

    # -- words: what can be typed here (completion.py) ----------------------------
    def first_text(self) -> str:
        """What the person reads first: exactly the first message a model gets (for a clembench
        instance, its prompt with the rules and the goal), so records that say it was sent are true."""
        return self.episode.first_message or self.playable.first_observation()

    def example_commands(self) -> str:
        """Two commands that are valid here, for help texts (clembench has no look and no compass)."""
        world = self.world
        if isinstance(world, World) and world.is_clembench():   # a story file is never a clembench instance
            room = world.style.player_room(self.game.state)
            exits = [world.name_of(t) for _, t in self.exits(self.game.state, room)]
            return f"\"examine {world.name_of(room)}\" or \"go {exits[0] if exits else 'kitchen'}\""
        return "\"take the key\" or \"go north\""

    def main_verbs(self) -> list[str]:
        return self.words.main_verbs()

    def verbs(self) -> list[str]:
        return self.words.verbs()

    def exits(self, st, room) -> list[tuple[str | None, str]]:
        return self.words.exits(st, room)

    def complete(self, text: str) -> tuple[int, list[str]]:
        """(where the word being completed starts, candidates): verbs and meta-commands first, then names."""
        return self.words.complete(text, self.game.state if self.game is not None else None, sorted(META_COMMANDS))

    # -- panels ---------------------------------------------------------------
    def tracker(self):
        """The planner's progress tracker (our worlds); ValueError for a game without our engine."""
        if self.game is None:
            raise ValueError("only our worlds have a planner")
        if self._tracker is None:
            from ..engine.metrics import ProgressTracker

            # a budget in states and in time: the panels wait for it, the person never does
            self._tracker = ProgressTracker(self.world, max_nodes=200_000, max_seconds=PROGRESS_SECONDS)
        return self._tracker

    def par(self, compute: bool = False) -> int | None:
        """Par as the screen shows it: the exact optimum once the planner has it (``compute`` asks for
        the search: off the UI thread), else the world's or instance's own (upstream's optimal_turns).

        One meaning everywhere on screen: ``solve``, the debug screen and the panels give the exact
        optimum, and upstream's number stands beside it (``par_upstream``) where it differs.
        """
        if compute or self.par_known():   # without ``compute`` only what is known already: never a search
            try:
                with self._search:
                    exact = self.tracker().par_0
            except Exception:
                exact = None
            if exact is not None:
                return exact
        return self.episode.par

    def par_known(self) -> bool:
        """The exact search for the start has finished (par may still be None: out of its budget)."""
        return self._tracker is not None and self._tracker.par_0_searched

    def par_pending(self) -> bool:
        """Par is still being searched for and there is nothing to show meanwhile (the panel says so)."""
        return self.show.par and not self.par_known() and self.episode.par is None

    def par_at_least(self) -> int | None:
        """When the exact search gave up on the start within the panels' budget: the turns it proved
        necessary (shown as "par ≥ N"); None otherwise."""
        if self._tracker is None:
            return None
        return self._tracker.lower_bound(self.world.initial)

    def par_upstream(self) -> int | None:
        """The par the world or instance states (clembench's optimal_turns), which records score against."""
        return self.episode.par

    def closing_done(self) -> bool:
        """The last turn is a ``done``, which par does not include."""
        turns = self.episode.turns
        last = turns[-1] if turns else None
        return last is not None and last.result is not None and last.result.action == "done"

    def moves(self) -> int:
        """Turns that count against par (``engine.metrics.moves``): the oracle's own run reads +0 over par."""
        return moves(len(self.episode.turns), self.closing_done())

    def moves_over_par(self, par: int | None) -> int | None:
        """``engine.metrics.moves_over_par``: a number once the episode is won, None before and otherwise."""
        ep = self.episode
        return moves_over_par(len(ep.turns), self.closing_done(), par, ep.ended and ep.outcome.success)

    def progress(self, state=None) -> float | None:
        """Share of the optimal plan from the start already done (may take a search: call off the UI thread).

        ``state`` is the state to judge, captured by the caller when the game may move on meanwhile.
        """
        if not self.show.progress:
            return None
        try:
            with self._search:   # one search at a time: a worker's and the score command's share the tracker
                tracker = self.tracker()
                if tracker.par_0 is None:
                    return None
                return tracker.progress(self.game.state if state is None else state)
        except Exception:   # a planner limit or a world the planner cannot handle: no bar, no crash
            return None

    def progress_figures(self, state, turns: int) -> "ProgressFigures":
        """The planner's numbers for one captured turn (``state`` after ``turns`` turns), for a worker thread."""
        if not (self.show.par or self.show.progress):   # blind: no search at all (it would only be hidden)
            return ProgressFigures(turns=turns, par=None, progress=None, moves_over_par=None, turn_ratio=None)
        par = self.par(compute=True)
        current = turns == len(self.episode.turns)
        made = self.moves() if current else turns
        return ProgressFigures(turns=turns, par=par, progress=self.progress(state), par_at_least=self.par_at_least(),
                               moves_over_par=self.moves_over_par(par) if current else None,
                               turn_ratio=turn_ratio(made, par, self.episode.max_turns) if par is not None else None)

    def whose_turn(self) -> str:
        """Who plays, and in a world of several players whose turn it is (hot-seat: the panels are theirs)."""
        world = self.world
        if not isinstance(world, World) or world.scene is None:   # one player (a story file has no scene)
            return self.player.name
        active = world.scene.active(self.game.state)
        return self.player.name if active is None else f"{self.player.name}: {world.name_of(active)}'s turn"

    def panels(self, progress: bool = False) -> Panels:
        """What the panels show now (``progress``: with the planner's figures, off the UI thread)."""
        made = world_panels(self, progress) if self.game is not None else game_panels(self)
        return self.show.panels(made)


class _Line:
    """A typed line as a player, so a human's turn goes through the same ``play_turn`` as a model's."""

    def __init__(self, reply: str, name: str, call: dict | None = None) -> None:
        self._reply = reply
        self.name = name
        self.call = call   # when the line was asked for and how long it took to type: the person's timing

    async def reply(self, episode, stream=None) -> Reply:
        return Reply(self._reply, call=self.call)


def open_session(world_path, player: str = "human", records="records", name: str | None = None,
                 mode: str = "text", **kwargs) -> Session:
    """Load the world and make the player, the same for the app and the REPL.

    Raises ``SourceErrors`` for a broken world and ValueError/OSError for a bad
    player spec; the command line reports them.
    """
    from ..catalog import open_world as load_world
    from ..players import make_player

    world = load_world(world_path)
    p = None if player == "human" else make_player(player, world, mode=mode)
    return Session(world, p, records=records, name=name, **kwargs)
