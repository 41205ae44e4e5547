"""A list of one-line rows with a cursor, that draws again only the rows that changed.

The watch dashboard changes a few rows of hundreds twice a second. Textual's
DataTable keys its render caches on a counter every change bumps, so each
change drew every visible cell again: a sixth of a core while sixteen
episodes played. Here a row is a ready-made line (cells padded by
``watch.view.Columns``), drawn as one segment, and a changed row refreshes
its own line; a reordering refreshes what is visible.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip


class LineTable(ScrollView, can_focus=True):
    COMPONENT_CLASSES = {"line-table--cursor"}
    DEFAULT_CSS = """
    LineTable > .line-table--cursor { background: $accent 40%; text-style: bold; }
    LineTable:focus > .line-table--cursor { background: $accent; color: $text; }
    """
    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
        Binding("home", "move(-1000000)", show=False),
        Binding("end", "move(1000000)", show=False),
        Binding("enter", "select", "Open", show=False),
    ]

    class Selected(Message):
        def __init__(self, table: "LineTable", key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> "LineTable":
            return self.table

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.keys: list[str] = []
        self.lines: list[str] = []
        self.cursor = 0

    @property
    def row_count(self) -> int:
        return len(self.keys)

    @property
    def cursor_key(self) -> str | None:
        return self.keys[self.cursor] if self.keys else None

    def set_rows(self, rows) -> None:
        """The rows, (key, line) each; the cursor stays on the row it was on."""
        keys = [key for key, _ in rows]
        lines = [line for _, line in rows]
        if keys == self.keys:
            changed = [i for i, (old, new) in enumerate(zip(self.lines, lines)) if old != new]
            self.lines = lines
            for i in changed:
                self.refresh_line(i - int(self.scroll_offset.y))
            return
        at = self.cursor_key
        self.keys, self.lines = keys, lines
        self.cursor = keys.index(at) if at in keys else min(self.cursor, max(0, len(keys) - 1))
        self.virtual_size = Size(0, len(lines))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        index = y + int(self.scroll_offset.y)
        if index >= len(self.lines):
            return Strip.blank(self.size.width, self.rich_style)
        style = self.rich_style
        if index == self.cursor:
            style = style + self.get_component_rich_style("line-table--cursor")
        width = self.size.width   # cut at the edge: the header above does not scroll sideways
        return Strip([Segment(self.lines[index][:width].ljust(width), style)], width)

    def _move_to(self, index: int) -> None:
        if not self.keys:
            return
        old, self.cursor = self.cursor, max(0, min(len(self.keys) - 1, index))
        top = int(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + self.size.height:
            self.scroll_to(y=self.cursor - self.size.height + 1, animate=False)
        self.refresh_line(old - int(self.scroll_offset.y))
        self.refresh_line(self.cursor - int(self.scroll_offset.y))

    def action_move(self, delta: int) -> None:
        self._move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._move_to(self.cursor + direction * max(1, self.size.height - 1))

    def action_select(self) -> None:
        if self.keys:
            self.post_message(self.Selected(self, self.keys[self.cursor]))

    def on_click(self, event) -> None:
        self._move_to(event.y + int(self.scroll_offset.y))
        if event.chain > 1:   # a double click opens, as Enter does
            self.action_select()
