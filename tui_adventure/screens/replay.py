"""Stepping through a recorded episode, forward and back, with the panels as they were; or following
one that is still being written (``adventure watch``), which becomes the same replay when it ends.

The replies are played once through a session that writes no records; the
screen keeps what the transcript and the panels showed after every turn, so
moving to any turn is instant. A model's turn is drawn as the app draws a
live one (``model_turns``): what it wrote beside the command, the call's
latency and tokens, and F3 for the messages it was sent, read back from the
requests file. Following, the screen looks at the episode's files twice a
second (one ``stat`` each) and reads them on a worker thread only when
they changed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ..records.files import VIEW_LIMIT, RecordsError, read_episode, read_json, replies_of
from ..engine.world import World
from ..engine.text import visible
from ..gamemaster.episode import Turn
from ..keyboard.figures import Panels
from ..keyboard.model_turns import is_model_turn, model_turn
from ..players.recorded import recorded_reply
from ..keyboard.session import Session
from ..widgets.panels import FiguresLine, SidePanels
from ..widgets.transcript import Transcript
from ..zmachine.game import StorySource

FOLLOW_EVERY = 0.5   # seconds between looks at a followed episode's files
ENDS = ("completed.json", "error.json")


@dataclasses.dataclass
class Frame:
    entries: int              # how many of the screen's transcript entries this turn shows
    panels: Panels            # the panels' data after this turn
    turn: Turn | None = None  # the turn as drawn (its answer read back from the records), None at the start


class ReplayScreen(Screen):
    BINDINGS = [
        Binding("right,n", "step(1)", "Next", id="replay.next"),
        Binding("left,p", "step(-1)", "Back", id="replay.back"),
        Binding("home", "jump(0)", "Start", id="replay.start"),
        Binding("end", "jump(-1)", "End", id="replay.end"),
        Binding("space", "play", "Play/Pause", id="replay.play"),
        Binding("f3", "request", "Request", id="replay.request"),
        Binding("f4", "debug", "Debug", id="replay.debug"),
        Binding("escape", "close", "Back", id="replay.close", show=False),
    ]

    def __init__(self, directory: Path, world: World | StorySource | None = None, follow: bool = False,
                 **kwargs) -> None:
        """``world``: where the episode was played, when the caller knows better than its records (None: as
        they say). ``follow``: the episode is being written; new turns are added as they land, and the screen
        stays on the newest one unless a person stepped back. An episode that already ended opens as
        a replay at its latest turn."""
        super().__init__(**kwargs)
        self.directory = Path(directory)
        self.recorded = read_episode(directory, world, VIEW_LIMIT)   # a larger episode: RecordsError, one line
        assert self.recorded.world is not None   # read_episode leaves it None only when asked for the replies alone
        self.world: World | StorySource = self.recorded.world
        self.follow = follow and not any((self.directory / name).exists() for name in ENDS)
        self.at_latest = follow   # where a followed episode opens, running or ended
        # (kind, text, who) in the transcript's order; a model's words ("said") are a tuple of lines
        self.entries: list[tuple[str, str | tuple[str, ...], str]] = []
        self.frames: list[Frame] = []
        self.replies: list[str] = []
        self.calls: dict[int, dict] = {}   # the requests files' calls, by round
        self.at = 0
        self.drawn = 0                     # entries now in the transcript widget
        self.playing = False
        self.session: Session | None = None
        self._seen: tuple | None = None     # the followed files as last read
        self._reading = False

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield Transcript(id="transcript")
                yield FiguresLine(id="figures")   # where the side panels do not fit (app.tcss)
                yield Static("", id="replay-status")
            yield SidePanels(id="side")
        yield Footer()

    async def on_mount(self) -> None:
        rec = self.recorded
        self.title = visible(f"{'following' if self.follow else 'replay'}: {self.world.title}")
        self.sub_title = visible(f"{rec.player} · {rec.directory.parent.name}/{rec.directory.name}")
        try:
            self.calls = _calls(self.directory) if self.follow or _has_requests(self.directory) else {}
        except RecordsError as exc:   # the turns still replay; what the model wrote and cost is lost
            self.notify(visible(str(exc)), title="The requests cannot be read", severity="warning", markup=False)
        self._start()
        await self._extend(rec.replies)
        self.show(len(self.frames) - 1 if self.at_latest else 0)
        if self.follow:
            self._seen = _files_key(self.directory)
            self.set_interval(FOLLOW_EVERY, self._look)

    def _start(self) -> None:
        world = self.world
        if self.session is not None:   # started again: the last play-through's game let go (an interpreter)
            self.session.close()
        self.session = session = Session(world, records=None)
        self.entries = [("note", world.title, ""), ("obs", session.playable.first_observation(), "")]
        self.frames = [Frame(len(self.entries), self._panels(session))]
        self.replies = []
        self.drawn = 0
        self.refresh_bindings()

    async def _extend(self, replies: list[str]) -> None:
        """Play the replies not played yet, a frame each."""
        session = self.session
        assert session is not None   # made by _start, which on_mount calls before any reply is played
        for reply in replies[len(self.replies):]:
            self.replies.append(reply)
            if session.episode.ended:
                break
            feedback = await session.submit_reply(reply)
            turn = feedback.turn
            if turn is None:
                break
            answer = recorded_reply(self.calls.get(turn.index - 1))
            shown = model_turn(dataclasses.replace(turn, answer=answer)) if answer is not None else None
            if shown is None:
                self.entries.append(("cmd", reply.strip().splitlines()[0] if reply.strip() else "(empty reply)", ""))
            else:
                who = f"{self.recorded.player}:"
                self.entries += [("cmd", shown.command, who), ("said", shown.said, ""), ("fig", shown.figures, "")]
                turn = dataclasses.replace(turn, answer=answer)
            if feedback.text:
                self.entries.append(("obs", feedback.text, ""))
            self.frames.append(Frame(len(self.entries), self._panels(session), turn))
        self.refresh_bindings()

    def _panels(self, session: Session) -> Panels:
        data = session.panels(progress=True)   # par and progress as they were after this turn (cached searches)
        data.player = self.recorded.player
        return data

    def show(self, index: int) -> None:
        self.at = max(0, min(len(self.frames) - 1, index))
        frame = self.frames[self.at]
        t = self.query_one(Transcript)
        if frame.entries < self.drawn:   # back in time: draw again from the start
            t.clear()
            self.drawn = 0
        for kind, text, who in self.entries[self.drawn:frame.entries]:
            if isinstance(text, tuple):   # "said": a model's words beside its command, a line each
                t.said(text)
            elif kind == "cmd":
                t.command(text, who=who)
            elif kind == "fig":
                t.figures(text)
            else:
                {"note": t.note, "obs": t.observation}[kind](text)
        self.drawn = frame.entries
        self.query_one(SidePanels).data = frame.panels
        self.query_one(FiguresLine).data = frame.panels
        status = f"turn {self.at} of {len(self.frames) - 1}  ·  ←/→ step  home/end  space play"
        if self.follow:
            status += "  ·  following: new turns appear as they are written"
        self.query_one("#replay-status", Static).update(status)

    # -- following an episode being written ------------------------------------------------
    def _look(self) -> None:
        """Twice a second: one stat per file; a read (on a thread) only when something changed."""
        if not self.follow or self._reading:
            return
        key = _files_key(self.directory)
        if key != self._seen:
            self._reading = True
            self._read(key)

    @work(thread=True, exclusive=True, group="follow")
    def _read(self, key: tuple) -> None:
        try:
            data = read_json(self.directory / "interactions.json", VIEW_LIMIT)
            replies = replies_of(data)
        except RecordsError as exc:
            self.app.call_from_thread(self._unreadable, str(exc))
            return
        try:
            calls = _calls(self.directory)
        except RecordsError:   # the turns still come; what the model wrote and cost is not shown
            calls = self.calls
        # call_from_thread awaits a coroutine function too; for one returning None mypy infers Never
        self.app.call_from_thread(self._landed, key, replies, calls)  # type: ignore[arg-type]

    def _unreadable(self, problem: str) -> None:
        self._reading = False
        self.query_one("#replay-status", Static).update(Text(visible(f"cannot read the episode's records: {problem}")))

    async def _landed(self, key: tuple, replies: list[str], calls: dict) -> None:
        self._reading = False
        self._seen = key
        self.calls = calls
        newest = self.at == len(self.frames) - 1
        if replies[:len(self.replies)] != self.replies:   # started again (a rerun): from the beginning
            self._start()
            newest = True
        await self._extend(replies)
        if any(key[1:]):   # completed.json or error.json: the replay it now is
            self.follow = False
            self.title = visible(f"replay: {self.world.title}")
            self.notify("The episode ended: this is now its replay", timeout=4, markup=False)
        self.show(len(self.frames) - 1 if newest else self.at)

    # -- keys ------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """F3 shows in the footer only for an episode a model played (a person's replay has no request)."""
        if action == "request":
            return any(f.turn is not None and is_model_turn(f.turn) for f in self.frames)
        return True

    def action_step(self, delta: int) -> None:
        self.show(self.at + delta)

    def action_jump(self, index: int) -> None:
        self.show(index if index >= 0 else len(self.frames) - 1)

    def action_request(self) -> None:
        """The messages of the newest model turn up to the one shown."""
        turn = next((f.turn for f in reversed(self.frames[:self.at + 1]) if f.turn is not None
                     and is_model_turn(f.turn)), None)
        if turn is None:
            self.notify("No model turn yet at this point of the episode", markup=False)
            return
        from .request import RequestScreen

        self.app.push_screen(RequestScreen(turn))

    def on_unmount(self) -> None:
        if self.session is not None:
            self.session.close()

    def action_close(self) -> None:
        """Back to where it was opened from (the watch dashboard); a replay alone stays."""
        if len(self.app.screen_stack) > 2:
            self.app.pop_screen()

    def action_debug(self) -> None:
        """The debug screen on the episode as it stood at this frame (facts, plan, events, moves)."""
        from .debug import DebugScreen

        session = Session(self.world, records=None)
        for reply in self.replies[:self.at]:
            if session.episode.ended:
                break
            session.episode.submit(reply)
        self.app.push_screen(DebugScreen(session))

    def action_play(self) -> None:
        self.playing = not self.playing
        if self.playing:
            self.autoplay()

    @work(exclusive=True)
    async def autoplay(self) -> None:
        while self.playing and self.at < len(self.frames) - 1:
            await asyncio.sleep(0.5)
            self.show(self.at + 1)
        self.playing = False


def _has_requests(directory: Path) -> bool:
    return any(directory.glob("player_*.requests.json"))


def _calls(directory: Path) -> dict[int, dict]:
    """Every player's recorded calls, by round (a world of several players has a file each)."""
    calls: dict[int, dict] = {}
    for path in sorted(directory.glob("player_*.requests.json")):
        data = read_json(path, VIEW_LIMIT)
        for entry in (data.get("calls") if isinstance(data, dict) else None) or []:
            if isinstance(entry, dict) and isinstance(entry.get("round"), int) and isinstance(entry.get("call"), dict):
                calls[entry["round"]] = entry["call"]
    return calls


def _files_key(directory: Path) -> tuple:
    """(interactions.json as (inode, time, size), completed.json there, error.json there)."""
    try:
        st = os.stat(directory / "interactions.json")
        files = (st.st_ino, st.st_mtime_ns, st.st_size)
    except OSError:
        files = None
    return (files, *((directory / name).exists() for name in ENDS))
