"""The Textual app: wires the screens, the keys and the command palette; nothing else.

Game logic lives in ``session``/``episode``; screens draw them. ``make_app``
is the one factory the command line and the tests both use, so what is
tested is what runs.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from .engine.text import visible
from .keyboard.session import Session
from .widgets.panels import PANEL_IDS

NARROW_BELOW = 72   # columns: the transcript's 40 and the side panels' 32


class AdventureApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "tui-adventure"
    # below 30 rows (80x24) the side panels draw their top border only, so all five fit beside the transcript
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]
    # below 72 columns the side panels (32) no longer fit beside the transcript (40): their essentials go under it
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_BELOW, "-wide")]
    BINDINGS = [
        Binding("f1", "help", "Help", id="app.help"),
        Binding("ctrl+q", "quit", "Quit", id="app.quit", priority=True),
    ]

    def __init__(self, session: Session | None = None, replay: Path | None = None,
                 replay_world=None, paused: bool = False, cursor_blink: bool = True,
                 config=None, mode: str = "text", study=None, watch: Path | None = None, served: bool = False,
                 **kwargs) -> None:
        """``study``: a participant's ``StudyRun``, played world after world instead of one session.
        ``watch``: a records folder whose runs and episodes are shown live (``adventure watch``).
        ``served``: a visitor's process of ``--serve`` (as is any app in a browser): it changes nothing of the
        operator's (a theme chosen holds for this session only) and offers nothing a browser cannot do."""
        super().__init__(**kwargs)
        self._served = served
        self.watched_root = watch
        self.study = study
        self.study_started = False   # the instructions are shown before the first world of this sitting
        self.mode = mode
        from .config import Config

        self.config = config or Config()
        self.start_paused = paused
        self.cursor_blink = cursor_blink
        self.session = session
        # the player the session started with (None: a person): a served visitor may hand it back the keyboard
        self.started_player = None if session is None or session.is_human else session.player
        self.replay_dir = replay
        self.replay_world = replay_world

    async def on_unmount(self) -> None:
        """Close the model clients this app's loop made (a model player, a voiced character): an
        unclosed aiohttp session would complain on the terminal after the app has gone."""
        from .players.backends.clients import close_clients
        await close_clients()

    def on_mount(self) -> None:
        cfg = self.config
        if cfg.theme and cfg.theme in self.available_themes:
            self.theme = cfg.theme
        elif cfg.theme:
            cfg.problems.append(f"unknown theme {cfg.theme!r}; the palette lists the themes")
        if cfg.keymap:
            self.set_keymap(cfg.keymap)
        for problem in cfg.problems:
            self.notify(problem, title="Settings", severity="warning", timeout=10, markup=False)
        if self.study is not None:
            self.next_world()
        elif self.watched_root is not None:
            from .screens.watch import WatchScreen

            self.push_screen(WatchScreen(self.watched_root))
        elif self.replay_dir is not None:
            from .screens.replay import ReplayScreen

            self.push_screen(ReplayScreen(self.replay_dir, self.replay_world))
        else:
            from .screens.play import PlayScreen

            assert self.session is not None, "an app with no study, watched root or replay plays a session"
            self.push_screen(PlayScreen(self.session, paused=self.start_paused, cursor_blink=self.cursor_blink))

    # -- a study: a pause, a world, a pause... ---------------------------------------------
    def next_world(self) -> None:
        from .screens.study import ConsentScreen, IntermissionScreen

        run = self.study
        if run.needs_consent():
            self.push_screen(ConsentScreen(run.study.title, run.study.consent), self.consent_given)
            return
        stage = run.next_stage()
        text = run.intermission(stage)
        if stage is None:
            self.finish_study(text)
            return
        first = run.done_count() == 0 and not self.study_started
        self.study_started = True
        intro = f"{run.study.instructions}\n\n{text}" if first and run.study.instructions else text
        self.push_screen(IntermissionScreen(run.study.title, intro), lambda _: self.start_world(stage))

    def consent_given(self, agreed: bool | None) -> None:
        from .screens.study import IntermissionScreen

        if agreed:
            self.study.agree()
            self.call_later(self.next_world)
            return
        self.study.decline()
        self.push_screen(IntermissionScreen(self.study.study.title, "You did not agree, so the study ends here."
                                            " Nothing was recorded but that you declined.", final=True,
                                            closing=self.end_note(None)), lambda _: self.exit())

    def finish_study(self, text: str) -> None:
        """The end: the completion code to hand back, then (in a browser) the platform's completion page."""
        from .screens.study import IntermissionScreen

        study = self.study.study
        if study.completion_code:
            text += f"\n\nYour completion code: {study.completion_code}"
        if study.completion_url and not self.is_web:
            text += f"\n\nFinish at: {study.completion_url}"

        def leave(_) -> None:
            if study.completion_url and self.is_web:
                self.open_url(study.completion_url, new_tab=False)
            self.exit()

        stays = self.is_web and not study.completion_url   # the code stays on the page, to be copied
        self.push_screen(IntermissionScreen(study.title, text, final=True, closing=self.end_note(study), stays=stays),
                         leave)

    def end_note(self, study) -> str:
        if not self.is_web:
            return "Press Enter to close."
        if study is not None and study.completion_url:
            return "Press Enter to go back to the study's platform."
        return "You may close this page now."

    def start_world(self, stage) -> None:
        from .screens.play import PlayScreen

        session = self.session = self.study.session(stage)

        def done() -> None:
            if session.recorder is not None:
                session.recorder.unlock()
            if stage.practice:
                self.study.mark_practice_done()
            self.pop_screen()
            # from the app's own queue: a screen pushed while the finished screen's message is handled
            # would send its result back to that screen, which is gone
            self.call_later(self.next_world)

        self.push_screen(PlayScreen(session, cursor_blink=self.cursor_blink, on_end=done,
                                    heading=self.study.heading(stage)))

    @property
    def served(self) -> bool:
        """A visitor's session (``--serve``, or any app drawn in a browser): the operator's files are not theirs."""
        return self._served or self.is_web

    def watch_theme(self, theme: str) -> None:
        if self.is_running and not self.served:   # not the theme set while the app starts
            self.config.save_theme(theme)

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            session = self.session
            if session is None:
                self.push_screen(HelpScreen())
                return
            examples = session.example_commands().replace('"', "`")
            self.push_screen(HelpScreen(examples, ", ".join(f"`{v}`" for v in session.main_verbs())))

    # -- the command palette ------------------------------------------------------
    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            # Textual's screenshot is written on the server and offered as a download the server does not serve
            if not (self.served and command.title == "Screenshot"):
                yield command
        from .screens.play import PlayScreen

        if not isinstance(screen, PlayScreen):
            return
        show = screen.session.show   # blind play offers nothing a model player lacks
        if show.switch_player:
            yield SystemCommand("Player: human", "Take the keyboard yourself", partial(screen.set_player, None))
            specs = []
            for spec, help_text in self.player_choices():
                specs.append(spec)
                yield SystemCommand(f"Player: {spec}", help_text, partial(self.switch_player, screen, spec))
            started = self.started_player
            if self.served and started is not None and started.name not in specs:
                yield SystemCommand(f"Player: {visible(started.name)}", "The player this session started with",
                                    partial(screen.set_player, started))
            yield SystemCommand("Pause / resume the model", "F5", screen.action_pause)
            yield SystemCommand("Step one model turn", "F6", screen.action_step)
            yield SystemCommand("Change the model's speed", "F7", screen.action_speed)
            yield SystemCommand("Show the last model request", "F3: the messages sent, tool calls and results",
                                screen.action_request)
        if show.undo:
            yield SystemCommand("Undo the last turn", "undo", partial(self.run_meta, screen, "undo"))
            yield SystemCommand("Restart the episode", "restart", partial(self.run_meta, screen, "restart"))
            yield SystemCommand("Save the game (quicksave)", "save", partial(self.run_meta, screen, "save"))
            yield SystemCommand("Restore the newest save", "restore", partial(self.run_meta, screen, "restore"))
        if show.planner:
            yield SystemCommand("Debug screen", "F4: facts, admissible commands, plan, jump back", screen.action_debug)
        yield SystemCommand("Toggle all side panels", "F2", screen.action_toggle_panels)
        for pid in PANEL_IDS:
            yield SystemCommand(f"Toggle the {pid} panel", "show or hide", partial(screen.toggle_panel, pid))

    def run_meta(self, screen, text: str) -> None:
        self.run_worker(screen.run_meta(text), group="meta")

    def player_choices(self) -> list[tuple[str, str]]:
        """The players the palette offers by spec: the programs, and (not served) the registry's models.
        A served visitor never gets a model of the operator's registry (it spends the operator's credits and
        writes the operator's caches): only the model the session started with, offered as it is."""
        choices = [("oracle", "The exact planner plays from here"),
                   ("random", "Uniform over the admissible commands")]
        if self.served:
            return choices
        try:
            from .players import registry

            for name in registry.model_names():
                choices.append((name, "A model from model_registry.json"))
        except Exception:   # no registry, or none readable: the built-in players remain
            pass
        return choices

    def switch_player(self, screen, spec: str) -> None:
        """Make the player ``spec`` names and hand it the keyboard; served, only a spec the palette offers."""
        from .players import make_player

        if self.served and spec not in dict(self.player_choices()):
            self.notify(visible(f"{spec}: not offered in a served session"), title="Cannot switch player",
                        severity="error", markup=False)
            return

        try:
            player = make_player(spec, screen.session.world, mode=self.mode)
        except Exception as exc:
            self.notify(visible(f"{spec}: {exc}"), title="Cannot switch player", severity="error", markup=False)
            return
        screen.set_player(player)


def make_app(world: str | Path, player: str = "human", records: str | Path = "records", name: str | None = None,
             saves: str | Path = "saves", mode: str = "text", paused: bool = False,
             cursor_blink: bool = True, blind: bool = False, new: bool = False) -> AdventureApp:
    from .config import load_config
    from .keyboard.figures import BLIND, RESEARCHER
    from .keyboard.session import open_session

    session = open_session(world, player, records, name, mode, saves=saves, show=BLIND if blind else RESEARCHER,
                           resume=not new)
    return AdventureApp(session, paused=paused, cursor_blink=cursor_blink, config=load_config(), mode=mode)


def run_study_app(run, cursor_blink: bool = True, served: bool = False) -> int:
    """A participant's queue in the app; 0 once every world is done, 1 when they quit before. Served to a
    browser, the cursor does not blink: each blink is a frame sent, for every participant of the server."""
    from .config import load_config

    app = AdventureApp(study=run, config=load_config(), cursor_blink=cursor_blink, served=served)
    try:
        app.run()
    finally:
        if app.session is not None:   # quit mid-world: that world's folder is no longer being written
            app.session.close()
    return 0 if run.next_stage() is None else 1


def run_watch_app(root: Path) -> int:
    from .config import load_config

    AdventureApp(watch=Path(root), config=load_config()).run()
    return 0


def run_app(session: Session, mode: str = "text", paused: bool = False, served: bool = False) -> int:
    from .config import load_config

    AdventureApp(session, paused=paused, config=load_config(), mode=mode, served=served).run()
    return 0
