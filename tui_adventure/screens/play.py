"""The main screen: transcript and command line on the left, panels on the right.

A person's lines go straight to the session (a turn takes milliseconds, so no
worker is needed). A model plays in a worker, one turn at a time, so pause,
step, speed and taking the keyboard back all happen between turns, and a
turn in flight is simply cancelled (it was never submitted, so it is not in
the records). Panels are recomputed after every turn; the progress rate
needs the planner, so it is computed in a thread and set when ready.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from ..engine.text import visible
from ..gamemaster.episode import PlayerFailed
from ..keyboard.model_turns import is_model_turn, model_turn
from ..keyboard.session import Session
from ..widgets.command_line import CommandLine
from ..widgets.panels import PANEL_IDS, FiguresLine, ScorePanel, SidePanels
from ..widgets.taps import TapBar
from ..widgets.transcript import Transcript

SPEEDS = [("fast", 0.0), ("normal", 0.4), ("slow", 1.5)]
# what a phone can tap instead of the footer's keys; the palette (Menu) has every other action
TAPS = [("Help", "app.help"), ("Panels", "screen.toggle_panels"), ("Menu", "app.command_palette"),
        ("Quit", "app.quit")]


class PlayScreen(Screen):
    BINDINGS = [
        Binding("f2", "toggle_panels", "Panels", id="panels.toggle"),
        Binding("f4", "debug", "Debug", id="screen.debug"),
        Binding("f5", "pause", "Pause", id="model.pause"),
        Binding("f6", "step", "Step", id="model.step"),
        Binding("f7", "speed", "Speed", id="model.speed"),
        Binding("f8", "keyboard", "Keyboard", id="player.keyboard"),
        # off the footer, which is full at 80 columns once a model plays: help and the palette name it
        Binding("f3", "request", "Request", show=False, id="model.request"),
    ]

    AUTO_FOCUS = "#command"

    def __init__(self, session: Session, paused: bool = False, cursor_blink: bool = True,
                 on_end: Callable[[], None] | None = None, heading: str | None = None, **kwargs) -> None:
        """``on_end``: called on the first Enter after the episode is over (a study's next world).
        ``heading``: what the window's title and the transcript's first line say instead of the world's
        title and the player (a study's participant reads "World 2 of 4", not an instance's id)."""
        super().__init__(**kwargs)
        self.session = session
        self.heading = heading
        self.on_end = on_end
        self.paused = paused
        self.cursor_blink = cursor_blink
        self.speed = 1
        self.model = None if session.is_human else session.player   # the model to hand the keyboard back to
        self.tokens: tuple[int, int] | None = None   # tokens in and out of that model's replies so far
        self.tokens_estimated = False                # some of them are our estimates (the server gave no usage)
        self.latency: float | None = None            # seconds its last reply took
        self.last_turn_ms: float | None = None

    # -- layout ---------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="body"):
            with Vertical(id="main"):
                yield Transcript(id="transcript")
                yield FiguresLine(id="figures")   # below the breakpoint only (app.tcss), as are the taps
                yield CommandLine(id="command")
                hint = Static("", id="completions")
                hint.display = False
                yield hint
            yield SidePanels(id="side")
        yield Footer()
        yield TapBar(TAPS, id="taps")

    def on_mount(self) -> None:
        self.title = visible(self.heading or self.session.world.title)
        line = self.query_one(CommandLine)
        line.history = self.session.history.lines
        line.completer = self.session.complete
        line.cursor_blink = self.cursor_blink
        self.start_transcript()
        self.refresh_panels()
        cfg = getattr(self.app, "config", None)
        if cfg is not None:
            self.speed = [name for name, _ in SPEEDS].index(cfg.speed) if cfg.speed in dict(SPEEDS) else 1
            for pid in PANEL_IDS:
                self.query_one(f"#{pid}").display = pid in cfg.panels
        line.focus()
        left = self.session.time_left()
        if left is not None:
            self.set_timer(max(0.0, left), self.time_up)
        if not self.session.is_human and not self.paused:
            self.autoplay()

    def time_up(self) -> None:
        """The time limit ran out while the person was thinking: the episode ends now, not at the next line."""
        if self.session.episode.ended or not self.session.out_of_time():
            return
        self.query_one(Transcript).note(f"[{self.session.outcome_text()}]")
        self.said_end()
        self.refresh_panels()

    def said_end(self) -> None:
        if self.on_end is not None and self.session.episode.ended:
            self.query_one(Transcript).note("[Press Enter to go on.]")

    def start_transcript(self) -> None:
        t = self.query_one(Transcript)
        t.clear()
        t.follow = False
        t.note(self.heading or self.session.world.title)
        t.observation(self.session.first_text())
        if self.session.continued and self.session.episode.turns:   # the game so far, then where it stands
            t.begin_turn(len(self.session.episode.turns))
            t.follow = True   # a resumed game opens at where it stands, not at its opening
            t.note(self.session.continued)
            t.observation(self.session.look())
        elif self.session.continued:
            t.note(self.session.continued)
        # the opening is read from the top, the title first; from the first command on, the log follows the game
        t.follow = bool(self.session.episode.turns)

    # -- panels -------------------------------------------------------------------
    def refresh_panels(self) -> None:
        data = self.session.panels()
        extra: dict[str, str | int] = {}
        if self.session.episode.ended:   # whoever played: the episode is over, and this is what is left to type
            extra["state"] = "episode over"
            extra["type"] = ("Enter: go on" if self.on_end is not None else
                             "undo, restart or quit" if self.session.show.undo else "quit")
        elif not self.session.is_human:
            extra["state"] = "paused" if self.paused else f"playing ({SPEEDS[self.speed][0]})"
            if self.tokens is not None:
                tokens_in, tokens_out = self.tokens
                if self.tokens_estimated:   # some counts are ours, not the server's: they must not read as measured
                    extra["tokens in"], extra["tokens out"] = f"≈{tokens_in}", f"≈{tokens_out}"
                else:
                    extra["tokens in"], extra["tokens out"] = tokens_in, tokens_out
            if self.latency is not None:
                extra["latency"] = f"{self.latency:.2f} s"
        data.extra = extra
        self.query_one(SidePanels).data = data
        self.query_one(FiguresLine).data = data
        # the turn is in the Score panel: a long title must not be cut for it
        self.sub_title = "" if self.heading else visible(data.player)
        # the planner runs in a thread but holds the GIL: start it once this turn is on screen
        self.call_after_refresh(self.start_progress)

    def start_progress(self) -> None:
        """Capture the turn's state here, on the UI thread: the search must not read a game that moves on.
        A game without our engine has no planner: nothing to compute."""
        if self.session.game is not None:
            self.compute_progress(self.session.game.state, len(self.session.episode.turns))

    @work(thread=True, exclusive=True, group="progress")
    def compute_progress(self, state, turns: int) -> None:
        figures = self.session.progress_figures(state, turns)
        self.app.call_from_thread(self._set_progress, figures)

    def _set_progress(self, figures) -> None:
        """The search's figures, on screen; none once the screen is being taken down (the app quit while
        the search ran: its answer arrives after the panel's parts are gone)."""
        try:
            score = self.query_one(ScorePanel)
            score.query_one("#score-text")
        except NoMatches:
            return
        d = score.data
        if d is None:
            return
        if d.turns == figures.turns:
            d.progress, d.par, d.par_at_least = figures.progress, figures.par, figures.par_at_least
            d.moves_over_par, d.turn_ratio = figures.moves_over_par, figures.turn_ratio
        elif d.par_pending:   # a later turn's search is on its way, but par for the start is known now
            now = self.session.panels()
            d.par, d.par_at_least, d.moves_over_par, d.turn_ratio = (now.par, now.par_at_least, now.moves_over_par,
                                                                     now.turn_ratio)
        else:
            return
        d.par_pending = False
        score.data = d
        self.query_one(FiguresLine).data = d

    # -- a person typing -------------------------------------------------------------
    async def on_command_line_entered(self, message: CommandLine.Entered) -> None:
        message.stop()
        if self.on_end is not None and self.session.episode.ended and message.line.strip().lower() != "quit":
            self.on_end()
            return
        if not message.line.strip():
            return
        if not self.session.is_human:
            self.take_keyboard()
        t = self.query_one(Transcript)
        before = len(self.session.episode.turns)
        feedback = await self.session.submit_line(message.line)
        if feedback.kind == "quit":
            self.app.exit()
            return
        with self.app.batch_update():   # one repaint for the whole turn
            if feedback.kind == "turn":
                t.begin_turn(before + 1)
            else:
                self.taken_back()       # before the meta-command's own lines, which stay unmarked
            t.command(self.session.echo(message.line))
            if feedback.kind == "restart":
                self.start_transcript()
            elif feedback.text:
                (t.note if feedback.kind != "turn" else t.observation)(feedback.text)
            if feedback.kind == "turn":
                self.said_end()
            self.refresh_panels()

    def taken_back(self) -> None:
        """Strike through the turns an undo, a restore or a jump back took out of the episode."""
        t = self.query_one(Transcript)
        now = len(self.session.episode.turns)
        if t.turn > now:
            t.mark_undone(now)
            t.begin_turn(now)

    def on_command_line_completed(self, message: CommandLine.Completed) -> None:
        """The candidates in a line under the command line (Tab again puts in the next), not a toast."""
        hint = self.query_one("#completions", Static)
        shown = Text("Tab: ", style="dim")
        for i, name in enumerate(message.candidates[:30]):
            shown.append(name, style="reverse" if i == message.current else "")
            shown.append("  ")
        hint.update(shown)
        hint.display = True

    def on_input_changed(self, event) -> None:
        cycle = event.input._cycle if isinstance(event.input, CommandLine) else None
        if cycle is None or event.value != cycle[0]:      # typed, not put in by Tab: the list is stale
            self.query_one("#completions", Static).display = False

    # -- a model playing ------------------------------------------------------------------
    @work(exclusive=True, group="model")
    async def autoplay(self, turns: int | None = None) -> None:
        """Play model turns until paused, the episode ends, or ``turns`` turns were played."""
        played = 0
        while not self.session.is_human and not self.session.episode.ended:
            if turns is None and self.paused:
                return
            if turns is not None and played >= turns:
                return
            if not await self.model_turn():
                return
            played += 1
            delay = SPEEDS[self.speed][1]
            if delay and turns is None:
                await asyncio.sleep(delay)

    async def model_turn(self) -> bool:
        t = self.query_one(Transcript)
        streamed: list[str] = []

        def stream(chunk: str) -> None:
            streamed.append(chunk)
            t.stream("".join(streamed))

        try:
            turn = await self.session.play(stream=stream)
        except PlayerFailed as exc:
            t.stream("")
            self.paused = True
            t.note(f"[{exc}; the episode is recorded as an error]")
            self.notify(visible(str(exc)), title="Player failed", severity="error", timeout=8, markup=False)
            self.refresh_panels()
            return False
        t.stream("")
        self.count(turn.answer)
        t.begin_turn(turn.index)
        who = self.session.player.name + ":"
        shown = model_turn(turn)
        if shown is None:   # a program's turn: its reply is the command
            t.command(turn.reply.strip().splitlines()[0] if turn.reply.strip() else "(empty reply)", who=who)
        else:
            t.command(shown.command, who=who)
            t.said(shown.said)
            t.figures(shown.figures)
        text = self.session.turn_text(turn)
        if text:
            t.observation(text)
        self.refresh_panels()
        return True

    def count(self, answer) -> None:
        """Add a model's answer to the panel's figures (a program's answer carries none)."""
        if answer is None or answer.latency is None:
            return
        tokens_in, tokens_out = self.tokens or (0, 0)
        self.tokens = (tokens_in + (answer.tokens_in or 0), tokens_out + (answer.tokens_out or 0))
        self.tokens_estimated = self.tokens_estimated or answer.tokens_estimated
        self.latency = answer.latency

    def take_keyboard(self) -> None:
        if not self.session.is_human:
            self.model = self.session.player
            self.workers.cancel_group(self, "model")
            self.query_one(Transcript).stream("")
            self.session.set_player(None)
            self.notify(f"You have the keyboard ({self.model.name} is waiting: F8 gives it back)", markup=False)
            self.refresh_panels()

    def set_player(self, player) -> None:
        """Switch who plays (from the palette): a model starts playing unless paused."""
        self.workers.cancel_group(self, "model")
        self.query_one(Transcript).stream("")
        self.session.set_player(player)
        if player is not None:
            if player is not self.model:   # another model: its own figures
                self.tokens = self.latency = None
                self.tokens_estimated = False
            self.model = player
            self.refresh_bindings()
            self.query_one(Transcript).note(f"[{player.name} plays]")
            if not self.paused:
                self.autoplay()
        else:
            self.query_one(Transcript).note("[you play]")
        self.refresh_panels()

    # -- actions --------------------------------------------------------------------
    MODEL_ACTIONS = frozenset({"pause", "step", "speed", "keyboard"})

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """The model keys (F5-F8) show in the footer only once there is a model to drive, so at 80
        columns a person at the keyboard sees Help and Quit instead of keys that do nothing."""
        if action in self.MODEL_ACTIONS and (self.model is None or not self.session.show.switch_player):
            return False
        if action == "debug" and not self.session.show.planner:   # blind: the planner's view is not the model's
            return False
        return True

    def action_keyboard(self) -> None:
        if not self.session.is_human:
            self.take_keyboard()
        elif self.model is not None:
            self.set_player(self.model)
        else:
            self.notify("No model to hand the keyboard to: pick a player in the palette (ctrl+p)")

    def action_pause(self) -> None:
        self.paused = not self.paused
        if not self.paused and not self.session.is_human:
            self.autoplay()
        self.notify("paused" if self.paused else "resumed", timeout=1.5)
        self.refresh_panels()

    def action_step(self) -> None:
        if self.session.is_human:
            self.notify("Step plays one model turn: pick a player first (ctrl+p)")
            return
        self.paused = True
        self.autoplay(turns=1)

    def action_speed(self) -> None:
        self.speed = (self.speed + 1) % len(SPEEDS)
        self.notify(f"speed: {SPEEDS[self.speed][0]}", timeout=1.5)
        self.refresh_panels()

    def action_request(self) -> None:
        """The messages the newest model turn of this episode sent (a turn taken back is no longer asked about)."""
        turn = next((t for t in reversed(self.session.episode.turns) if is_model_turn(t)), None)
        if turn is None:
            self.notify("No model turn yet: the request is shown once a model has played", markup=False)
            return
        from .request import RequestScreen

        self.app.push_screen(RequestScreen(turn))

    def action_toggle_panels(self) -> None:
        """Side panels off or on; below the breakpoint (they are off there) on under the transcript or off.
        Each width keeps its own choice, so a phone turned sideways finds what it had there."""
        side = self.query_one("#side")
        side.toggle_class("-shown" if self.has_class("-narrow") else "-hidden")

    def toggle_panel(self, panel_id: str) -> None:
        panel = self.query_one(f"#{panel_id}")
        panel.display = not panel.display

    def action_debug(self) -> None:
        from .debug import DebugScreen

        self.app.push_screen(DebugScreen(self.session), self._after_debug)

    async def _after_debug(self, command: str | None) -> None:
        """The debug screen may return a command to run, or jump back in time (then it returns '')."""
        if command:
            line = self.query_one(CommandLine)
            await self.on_command_line_entered(CommandLine.Entered(command))
            line.focus()
        else:
            self.taken_back()
            self.refresh_panels()

    async def run_meta(self, text: str) -> None:
        """A meta-command from the palette, shown as if typed."""
        await self.on_command_line_entered(CommandLine.Entered(text))
