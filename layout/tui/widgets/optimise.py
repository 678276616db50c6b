"""The Optimise tab's panel: the background layout search (layout.tui.optimizer) as it goes; enter
accepts its best, escape stops it (the app's O and A do the same from anywhere)."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static


class OptimisePanel(VerticalScroll):
    BINDINGS = [
        Binding("enter", "app.accept_layout", "accept", show=False),
        Binding("escape", "app.stop_optimise", "stop", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Static("", id="optimise-view")

    def show(self, renderable: Any) -> None:
        self.query_one("#optimise-view", Static).update(renderable)
