"""`adventure repl`: play a world line by line, at a prompt or from a pipe.

The second front end beside the Textual app, for people who want a shell
rather than a screen, and for scripts. It owns no turn logic: every line goes
to ``Session.submit_line`` and every model turn to ``Session.play``, the same
calls the app makes, so the records are the same whichever front end wrote
them. What is left here is reading lines and printing feedback.

At a terminal it is one prompt_toolkit ``PromptSession`` (the pgcli shape):
the world's shared history file, completion of verbs and of the names in
sight, and a bottom toolbar with the live metrics. When stdin or stdout is not
a terminal it reads one command a line and writes plain text, so a
transcript can be scripted and diffed.

Everything runs on one ``asyncio.Runner`` (``runner.new_runner``) driven from a plain loop, rather than
inside one long coroutine, so that Ctrl-C raises where a person expects it:
during a model's turn it cancels that turn (nothing half-played reaches the
records), and while a pipe is being read it is not swallowed by a blocked loop.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
import threading
from typing import TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import Completer, Completion, ThreadedCompleter
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import History as PromptHistory
from prompt_toolkit.shortcuts import print_formatted_text
from prompt_toolkit.styles import Style

from ..engine.text import plural, visible
from ..gamemaster.episode import PlayerFailed
from .keys import MetaKey, key_hints, repl_bindings
from .runner import new_runner
from ..keyboard.history import History
from ..keyboard.figures import Panels, figures_line
from ..keyboard.model_turns import model_turn
from ..keyboard.session import Feedback, Session

STYLE = Style.from_dict({
    "title": "bold",
    "command": "bold",
    "note": "ansibrightblack",
    "said": "ansibrightblack italic",
    "error": "ansired",
    "bottom-toolbar": "noreverse bg:ansiblack fg:ansiwhite",
})

EXIT_INTERRUPTED = 130   # what a shell reports for a command stopped by Ctrl-C
SAID = "  | "            # before each line a model wrote beyond its command


class SessionCompleter(Completer):
    """Verbs and meta-commands first, then the names in sight, read from the live session at each keystroke
    (so moving rooms, taking things or undoing needs no refresh)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def get_completions(self, document, complete_event):
        text = document.text_before_cursor
        start, candidates = self.session.complete(text)
        for word in candidates:
            yield Completion(word, start_position=start - len(text))


class SharedHistory(PromptHistory):
    """The world's history file as prompt_toolkit sees it: the Textual app reads and writes the same file,
    so up-arrow brings back what was typed in either front end."""

    def __init__(self, history: History) -> None:
        super().__init__()
        self.history = history

    def load_history_strings(self):
        yield from reversed(self.history.lines)

    def store_string(self, string: str) -> None:
        """Nothing to do: ``Session.submit_line`` already keeps every line it is given (once)."""


def toolbar_text(p: Panels) -> str:
    text = figures_line(p)
    if p.ended:
        text += " · " + ("ended: quit to go on" if p.blind else "ended: undo, restart or quit")
    return text


def build_prompt(session: Session, input=None, output=None) -> PromptSession:
    """The one PromptSession of a REPL (``input``/``output`` are for tests: a pipe and a DummyOutput)."""
    return PromptSession(
        message="> ",
        history=SharedHistory(session.history),
        completer=ThreadedCompleter(SessionCompleter(session)),
        complete_while_typing=True,
        auto_suggest=AutoSuggestFromHistory(),
        bottom_toolbar=lambda: f" {toolbar_text(session.panels())}    {key_hints()}",
        key_bindings=repl_bindings(),
        style=STYLE,
        input=input,
        output=output,
    )


class Printer:
    """Text to ``out``: shown safely (control characters made visible), wrapped at a terminal, styled in colour."""

    def __init__(self, out: TextIO, color: bool, width: int | None) -> None:
        self.out, self.color, self.width = out, color, width

    def say(self, text: str, style: str = "") -> None:
        if not text:
            return
        text = visible(text)
        if self.width:
            text = wrap(text, self.width)
        self._print(text, style)

    def say_beside(self, lines, prefix: str = SAID) -> None:
        """Lines that are not the game's (what a model wrote beyond its command): every line, wrapped
        ones too, starts with ``prefix``, so none can be read as the game's answer."""
        out = []
        for line in lines:
            line = visible(line)
            out += (wrap(line, self.width - len(prefix)) if self.width else line).split("\n")
        if out:
            self._print("\n".join(prefix + line for line in out), "said")

    def _print(self, text: str, style: str) -> None:
        if self.color and style:
            print_formatted_text(FormattedText([(f"class:{style}", text)]), style=STYLE, file=self.out)
        else:
            print(text, file=self.out, flush=True)


class Repl(Printer):
    """Reads lines from a prompt (``interactive``) or from ``lines`` (a pipe), prints to ``out``."""

    def __init__(self, session: Session, *, interactive: bool = True, input=None, output=None,
                 lines: TextIO | None = None, out: TextIO | None = None, color: bool | None = None,
                 width: int | None = None, stop_at_end: bool = False, heading: str | None = None) -> None:
        """``stop_at_end``: return once the episode is over (a study goes on to its next world). ``heading``:
        what the first line says instead of the world's title (a study's "World 2 of 4", not an instance's id)."""
        self.session = session
        self.heading = heading
        self.stop_at_end = stop_at_end
        self.out = out if out is not None else sys.stdout
        self.lines = lines if lines is not None else sys.stdin
        self.interactive = interactive
        self.color = (interactive and self.out.isatty()) if color is None else color
        # at a terminal, text is wrapped at word boundaries (the terminal itself would cut "the l|iving room");
        # piped output stays as the game wrote it
        self.width = width if width is not None else (shutil.get_terminal_size().columns if interactive else None)
        self.prompt = build_prompt(session, input, output) if interactive else None
        self.kept = ""   # a half-typed line a meta-command key set aside
        self.runner = new_runner()

    # -- printing -------------------------------------------------------------
    def show(self, feedback: Feedback) -> None:
        if feedback.kind == "error":
            self.say(feedback.text, "error")
            return
        self.say(feedback.text)
        turn = feedback.turn
        if turn is None or not turn.goal_score:
            return
        p = self.session.panels()
        if p.scored is not None:   # a game with a score of its own (not in blind play)
            self.say(f"[score {turn.goal_score:+d}: {p.scored[0]} of {p.scored[1] or '?'}]", "note")
        elif p.goals_achieved is not None:   # not in blind play
            self.say(f"[goal {turn.goal_score:+d}: {p.goals_achieved}/{plural(p.goal_count, 'goal')}]", "note")

    def intro(self) -> None:
        self.say(self.heading or self.session.world.title, "title")
        self.say("\n" + self.session.first_text())
        if self.session.continued:
            self.say(self.session.continued, "note")
            if self.session.episode.turns:
                self.say(self.session.look())

    # -- the loops --------------------------------------------------------------
    def run(self) -> int:
        """Play until quit, end of input, or (for a model) the end of the episode; the exit status."""
        try:
            self.intro()
            if self.session.is_human:
                return self.run_human()
            return self.run_player()
        finally:
            from ..players.backends.clients import close_clients
            self.runner.run(close_clients())   # before the loop goes: unclosed sessions complain
            self.runner.close()

    def run_human(self) -> int:
        if self.interactive and self.session.show.par:   # once, in a thread: the toolbar says "computing" meanwhile
            threading.Thread(target=self._search_par, daemon=True).start()
        while True:
            try:
                line = self.read_line()
            except KeyboardInterrupt:
                if self.interactive:
                    continue                 # Ctrl-C abandons the line being typed, as in a shell
                return EXIT_INTERRUPTED      # a pipe has no line being typed: Ctrl-C means stop
            except EOFError:
                return 0
            if isinstance(line, MetaKey):
                self.kept = line.kept
                self.show(self.runner.run(self.session.meta(line.word)))
                continue
            if not self.interactive and line.strip():
                self.say(self.session.echo(line))   # so a piped transcript shows what each answer answers
            feedback = self.runner.run(self.session.submit_line(line))
            if feedback.kind == "quit":
                return 0
            self.show(feedback)
            if self.stop_at_end and self.session.episode.ended:
                return 0

    def _search_par(self) -> None:
        self.session.par(compute=True)
        app = self.prompt.app if self.prompt is not None else None
        if app is not None and app.is_running:   # redraw the toolbar with par now, not at the next key
            app.invalidate()

    def read_line(self) -> str | MetaKey:
        if self.prompt is not None:
            kept, self.kept = self.kept, ""
            return self.runner.run(self.prompt.prompt_async(default=kept))
        line = self.lines.readline()
        if not line:
            raise EOFError
        return line.rstrip("\r\n")

    def run_player(self) -> int:
        """The player plays turn after turn until the episode ends; Ctrl-C stops it between or within turns."""
        session = self.session
        name = session.player.name
        self.say(f"[{name} plays; Ctrl-C stops it]", "note")
        try:
            while not session.episode.ended:
                live = LiveLine(self.out, f"{name}: ", self.width) if self.color else None
                try:
                    # piped, the reply is still asked for as a stream (the request stays what it was): only unshown
                    turn = self.runner.run(session.play(live.stream if live else _unshown))
                except PlayerFailed as exc:
                    self.say(f"[{exc}]", "error")
                    self.say(f"[{session.outcome_text()}]", "note")
                    return 1
                finally:
                    if live:
                        live.clear()
                self.show_turn(name, turn)
                self.show(Feedback("turn", session.turn_text(turn), turn))
        except KeyboardInterrupt:
            self.out.write("\n")
            self.say(f"[stopped after {plural(len(session.episode.turns), 'turn')}; the records so far are kept]", "note")
            return EXIT_INTERRUPTED
        return 0

    def show_turn(self, name: str, turn) -> None:
        """A model's turn: its command, what else it wrote, the call's figures; a program's: the command."""
        shown = model_turn(turn)
        if shown is None:
            self.say(f"> {turn.command}" if turn.command is not None else turn.reply, "command")
            return
        self.say(f"{name}: {shown.command}", "command")
        self.say_beside(shown.extra)
        if shown.figures:
            self.say(f"[{shown.figures}]", "note")


def _unshown(chunk: str) -> None:
    pass


class LiveLine:
    """A model's reply as it streams, on one line that is rewritten and then erased.

    The whole reply is printed once the turn is played, with the command apart from the rest;
    streamed as it came, its extra lines would stand in the scrollback like the game's answer.
    Only at a terminal: a pipe gets the finished turn alone.
    """

    def __init__(self, out: TextIO, prefix: str, width: int | None) -> None:
        self.out, self.prefix = out, prefix
        self.width = width or shutil.get_terminal_size().columns
        self.text = ""

    def stream(self, chunk: str) -> None:
        self.text += chunk
        room = max(10, self.width - len(self.prefix) - 1)
        tail = " ".join(visible(self.text).split())[-room:]
        self.out.write(f"\r\x1b[K\x1b[2m{self.prefix}{tail}\x1b[0m")
        self.out.flush()

    def clear(self) -> None:
        if self.text:
            self.out.write("\r\x1b[K")
            self.out.flush()


def wrap(text: str, width: int) -> str:
    """Each line wrapped at word boundaries to ``width`` columns (blank lines and indents kept)."""
    out = []
    for line in text.split("\n"):
        indent = line[:len(line) - len(line.lstrip(" "))]
        out.append(textwrap.fill(line, width=max(20, width - 1), subsequent_indent=indent, break_long_words=False,
                                 break_on_hyphens=False) if len(line) >= width else line)
    return "\n".join(out)


def run_study(run, interactive: bool | None = None, lines: TextIO | None = None, out: TextIO | None = None) -> int:
    """A participant's queue in line mode (for a session over ssh, or a pipe): the instructions, then each
    world after a pause the participant ends with Enter; quitting (or the end of input) leaves the rest for
    the same command to resume. The exit status: 0 when the queue is done, 130 on Ctrl-C, else 1."""
    interactive = sys.stdin.isatty() and sys.stdout.isatty() if interactive is None else interactive
    lines = lines if lines is not None else sys.stdin
    out = out if out is not None else sys.stdout
    say = Printer(out, interactive and out.isatty(), shutil.get_terminal_size().columns if interactive else None)

    def read() -> str | None:
        try:
            return input() if interactive else (lines.readline() or None)
        except (EOFError, KeyboardInterrupt):
            return None

    if run.needs_consent():
        say.say(run.study.title, "title")
        say.say(run.study.consent)
        say.say("\n[Type yes to agree and begin, or no to stop here.]", "note")
        answer = read()
        if answer is None:   # the end of a pipe, or Ctrl-C: nothing said, nothing kept
            return 1
        if answer.strip().lower() not in ("yes", "y", "i agree"):
            run.decline()
            say.say("[You did not agree, so the study ends here. Nothing was recorded but that you declined.]", "note")
            return 1
        run.agree()
    if run.done_count() == 0:
        say.say(run.study.title, "title")
        if run.study.instructions:
            say.say(run.study.instructions)
    while True:
        stage = run.next_stage()
        say.say(f"\n[{run.intermission(stage)}]", "note")
        if stage is None:
            study = run.study
            if study.completion_code:
                say.say(f"Your completion code: {study.completion_code}")
            if study.completion_url:
                say.say(f"Finish at: {study.completion_url}")
            return 0
        ready = read()
        if not interactive and not ready:   # the end of a pipe: resume later
            return 1
        heading = run.heading(stage)   # taken before the world starts: it counts the worlds done so far
        session = run.session(stage)
        session.shown_now()
        try:
            status = Repl(session, interactive=interactive, lines=lines, out=out, stop_at_end=True,
                          heading=heading).run()
        finally:
            if session.recorder is not None:
                session.recorder.unlock()
        if status == EXIT_INTERRUPTED:
            return status
        if not session.episode.ended:
            say.say(f"[stopped: {run.done_count()} of {plural(len(run.stages), 'world')} done; the same command resumes"
                    " at the first world not finished]", "note")
            return 1
        if stage.practice:
            run.mark_practice_done()


def run_repl(session: Session) -> int:
    """Prompt at a terminal; plain lines in and out when either end is a pipe."""
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    return Repl(session, interactive=interactive).run()
