"""Words to tap for a screen's main actions, where the footer's keys do not fit or cannot be pressed."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class TapBar(Static):
    """One line of labelled actions, each run by a click or a tap (a phone has no F2 or ctrl+q).

    ``taps``: (label, action) pairs; an action names its namespace as Textual's links do
    (``app.help``, ``screen.toggle_panels``). The stylesheet decides where the bar shows instead of the footer.
    """

    def __init__(self, taps: list[tuple[str, str]], **kwargs) -> None:
        content = Content(" ").join(Content.from_markup(f"[@click={action}] $label [/]", label=label)
                                    for label, action in taps)
        super().__init__(content, **kwargs)
