"""Help as a modal: what to type, the keys, and what the panels mean."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from ..keyboard.session import META_COMMANDS
from ..widgets.taps import TapBar

HELP = """\
# tui-adventure

Type a command and press **Enter**, e.g. {examples}.
Verbs here: {verbs}. **Tab** completes verbs and the names that fit (again:
the next one); **up/down** walk through the commands you typed in this world.

## Meta-commands (no game time)
{meta}

## Keys
| key | does |
|---|---|
| ctrl+p | command palette: switch player, pause, step, speed, save/restore, panels, theme |
| F1 | this help |
| F2 | show or hide the side panels (below 72 columns: under the transcript, where a line of figures stands for them) |
| F3 | the messages the last model turn sent (its request), with tool calls and results |
| F4 | debug screen: facts, admissible commands, optimal plan, goals, events, jump back |
| F5 / F6 / F7 | pause or resume a model / play one model turn / change its speed |
| F8 | take the keyboard from the model, or hand it back |
| ctrl+q | quit (records so far are kept) |

## Panels
**Score**: `Goals` achieved (and the last change) with `Main`, the clembench
Main Score so far; `Turn` played and the turn limit, `par` (`computing…` while
the planner searches), and once the game is won the moves over par;
`Ratio`, the turn ratio; `Invalid` commands; and a bar with the progress rate
(share of the optimal plan from the start already done).

- **par**: the exact optimal number of turns to reach every goal, as
  `adventure solve` finds it; where the world states another (clembench's
  `optimal_turns`), it stands beside it: `par 8 (upstream 10)`.
- **over par** (moves over par): once the game is won, the turns played, not
  counting a closing `done`, minus par: an optimal run reads `par 8 +0 over`.
  The records also keep clembench's own `turns_over_par` (the `done` counted,
  against the stated par): `+1` for the same run.
- **Ratio** (turn ratio): 1 at par, falling to 0 at the turn limit
  (1 - over par / (turn limit - par)). The records (`adventure score`) keep
  clembench's own formula against the stated par.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q", "close", "Close", id="help.close")]

    def __init__(self, examples: str = "`look` or `go north`", verbs: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.examples, self.verbs = examples, verbs   # per world: clembench has no look and no compass

    def compose(self) -> ComposeResult:
        meta = "\n".join(f"- `{text.split(':')[0]}`: {text.split(':', 1)[1].strip()}"
                         for text in META_COMMANDS.values())
        body = VerticalScroll(id="help-body")
        body.border_title = "Help"
        # on the frame, never scrolled away: how to leave and how to read the rest at 80x24
        body.border_subtitle = "Esc closes · ↑↓ PgUp PgDn scroll"
        with body:
            yield Markdown(HELP.format(meta=meta, examples=self.examples, verbs=self.verbs or "-"))
        yield TapBar([("Close", "screen.close")], id="taps")   # a phone has no Esc (shown narrow only)

    def action_close(self) -> None:
        self.dismiss(None)
