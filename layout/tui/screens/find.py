"""The find dialog: type an id, enter goes to it; what names nothing is said in the dialog, which stays."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, Static

from layout.tui.find import HOW, Found
from layout.tui.footer import DialogFooter
from layout.tui.screens.dialogs import DialogInput, FieldDialog


class FindScreen(FieldDialog):
    """Find a rack, row, hall, building, device or cable: ``resolve`` turns the typed text into what it
    names or a message; the dialog dismisses with what was found, or None on escape."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]
    FOOTER_HINTS = (("enter", "go there"),)

    def __init__(self, resolve: Callable[[str], Found | str], value: str = "") -> None:
        super().__init__()
        self.resolve = resolve
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label("Find / go to", classes="dialog-title")
            yield self.field(
                DialogInput(
                    value=self.value, placeholder="B1/H1/R03/K07, R03, srv-00017, a cable id…", id="find"
                )
            )
            yield Static(Text(f"Type {HOW}."), id="find-message", classes="dialog-help")
            yield Label("enter: go there · escape: cancel", classes="dialog-help")
        yield DialogFooter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        got = self.resolve(event.value)
        if isinstance(got, str):
            self.query_one("#find-message", Static).update(Text(got, style="bold red"))
            return
        self.dismiss(got)
