"""B: the current design beside the site as last saved (or opened), figure by figure: every headline
figure of layout/figures.py with its two values as every output writes them and the move between."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from layout.tui.footer import DialogFooter
from layout.tui.status import delta

if TYPE_CHECKING:
    from layout.figures import Figures


def ab_table(saved: Figures, now: Figures) -> Table:
    """Figure, as saved, now, and the move (bold where a figure moved)."""
    t = Table(box=None, pad_edge=False, expand=True, show_header=True, header_style="bold")
    t.add_column("figure", ratio=3)
    t.add_column("as saved (A)", justify="right", ratio=2)
    t.add_column("now (B)", justify="right", ratio=2)
    t.add_column("move", justify="right", ratio=2)
    for f in now:
        before = saved[f.spec.key]
        moved = delta(f.spec.key, before.value, f.value)
        t.add_row(f.label, before.text, f.text, Text(moved, style="bold") if moved else Text(""))
    return t


class CompareScreen(ModalScreen[None]):
    """The A/B view; any of B, escape, enter or q closes it, the arrows scroll it."""

    BINDINGS = [Binding("escape,B,enter,q", "dismiss(None)", "close")]
    FOOTER_HINTS = (("up", "scroll"),)

    def __init__(self, title: str, saved: Figures, now: Figures) -> None:
        super().__init__()
        self.title_text, self.saved, self.now = title, saved, now

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide compare"):
            yield Label(self.title_text, classes="dialog-title")
            with VerticalScroll(id="compare-scroll"):
                yield Static(ab_table(self.saved, self.now), id="compare")
            yield Label("B, escape or enter: close · arrows: scroll", classes="dialog-help")
        yield DialogFooter()

    def on_mount(self) -> None:
        self.query_one("#compare-scroll").focus()
