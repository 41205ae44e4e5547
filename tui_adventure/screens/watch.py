"""``adventure watch``: the runs and episodes of a records tree being written, live.

The tree is read on a worker thread (``watch.tree``: polling of modification
times, bounded work per tick), which also counts the runs' rows, the alerts
and the episode rows to draw, all as plain strings: the screen only puts
them into its tables, changing the cells that changed. A filter or a sort
wakes the worker at once. Enter on an episode follows it (``ReplayScreen``
with ``follow``); Enter on a run narrows the episodes to it.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.containers import Vertical
from textual.widgets import Footer, Header, Input, Static
from textual.worker import get_current_worker

from ..records.files import RecordsError
from ..engine.text import visible
from ..watch.board import Board, Picture
from ..watch.cache import SummaryCache
from ..watch.tree import RecordsTree
from ..watch.view import SORTS
from ..widgets.line_table import LineTable

TICK = 0.5       # seconds between looks at the tree
BUDGET = 0.15    # seconds of first reads per tick (a large tree fills in over several ticks)


class WatchScreen(Screen):
    BINDINGS = [
        Binding("slash", "filter", "Filter", id="watch.filter"),
        Binding("s", "sort", "Sort", id="watch.sort"),
        Binding("escape", "clear", "Clear filter", id="watch.clear"),
    ]

    def __init__(self, root: Path, cache: SummaryCache | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.records_root = Path(root)
        self.records = RecordsTree(self.records_root,
                                   cache if cache is not None else SummaryCache.for_root(self.records_root))
        self.board = Board(self.records)
        self.filter_text = ""
        self.sort = SORTS[0]
        self.picture: Picture | None = None
        self._wake = threading.Event()
        self._stop = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="alerts")
        with Vertical(id="runs-box") as box:
            box.border_title = "Runs"
            yield Static("", classes="line-header", id="runs-header")
            yield LineTable(id="runs")
        yield Input(placeholder="filter: run:NAME world:NAME outcome:STATUS stuck[:N] or any words (/)",
                    id="filter")
        with Vertical(id="episodes-box") as box:
            box.border_title = "Episodes"
            box.border_subtitle = "Enter follows one · / filter · s sort"
            yield Static("", classes="line-header", id="episodes-header")
            yield LineTable(id="episodes")
        yield Static("", id="watch-status")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "watch"
        self.sub_title = visible(str(self.records_root))
        self.query_one("#alerts", Static).display = False
        self.query_one("#watch-status", Static).update(Text(visible(f"reading {self.records_root} ...")))
        self.query_one("#episodes", LineTable).focus()
        self.scan()

    def on_unmount(self) -> None:
        self._stop = True
        self._wake.set()

    # -- the worker: reading the tree -------------------------------------------------------
    @work(thread=True, exclusive=True, group="watch")
    def scan(self) -> None:
        worker = get_current_worker()
        tree = self.records
        drawn, pending = float("-inf"), True
        try:
            while not self._stop and not worker.is_cancelled:
                started = time.monotonic()
                asked = self._wake.is_set()
                self._wake.clear()
                pending = tree.tick(BUDGET) or pending
                # while a large tree fills in, a picture every TICK: each costs a pass over every episode
                if asked or (pending and (not tree.unread or started - drawn >= TICK)):
                    drawn, pending = started, False
                    picture = self.draw_picture()
                    if self._stop or worker.is_cancelled:
                        break
                    self.app.call_from_thread(self.show_picture, picture)
                pause = 0.01 if tree.unread else max(0.05, TICK - (time.monotonic() - started))
                self._wake.wait(pause)
        finally:
            if tree.cache is not None:
                tree.cache.save()

    def draw_picture(self) -> Picture:
        return self.board.picture(self.filter_text, self.sort)

    # -- the screen: drawing a picture -----------------------------------------------------
    def show_picture(self, picture: Picture) -> None:
        """Only what changed is touched: each update costs the terminal a redraw of that widget."""
        before, self.picture = self.picture, picture
        if before is None or before.alerts != picture.alerts:
            box = self.query_one("#alerts", Static)
            box.display = bool(picture.alerts)
            box.update(Text("\n".join(f"! {line}" for line in picture.alerts)))
        for name, header, rows in (("runs", picture.runs_header, picture.runs),
                                   ("episodes", picture.episodes_header, picture.episodes)):
            if before is None or header != getattr(before, f"{name}_header"):
                self.query_one(f"#{name}-header", Static).update(Text(header, style="bold"))
            self.query_one(f"#{name}", LineTable).set_rows(rows)
        if before is None or before.status != picture.status:
            self.query_one("#watch-status", Static).update(Text(picture.status))

    @on(LineTable.Selected, "#episodes")
    def follow(self, event: LineTable.Selected) -> None:
        from .replay import ReplayScreen

        path = Path(event.key)
        try:
            screen = ReplayScreen(path, follow=True)
        except (RecordsError, OSError) as exc:
            self.notify(visible(str(exc)), title="Cannot open this episode", severity="warning", markup=False)
            return
        self.app.push_screen(screen)

    @on(LineTable.Selected, "#runs")
    def narrow_to_run(self, event: LineTable.Selected) -> None:
        words = [w for w in self.filter_text.split() if not w.startswith("run:")]
        self.query_one("#filter", Input).value = " ".join([f"run:{visible(event.key)}", *words])
        self.query_one("#episodes", LineTable).focus()

    @on(Input.Changed, "#filter")
    def filter_changed(self, event: Input.Changed) -> None:
        self.filter_text = event.value
        self._wake.set()

    @on(Input.Submitted, "#filter")
    def filter_done(self) -> None:
        self.query_one("#episodes", LineTable).focus()

    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_clear(self) -> None:
        self.query_one("#filter", Input).value = ""
        self.query_one("#episodes", LineTable).focus()

    def action_sort(self) -> None:
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        self._wake.set()
        self.notify(f"episodes sorted by {self.sort}", timeout=1.5)
