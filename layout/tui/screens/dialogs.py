"""Small modal dialogs: pick one of a list, enter a number, open a file, read a message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


class ChoiceScreen(ModalScreen[Any]):
    """Pick one value from a list; dismisses with the value, or None on escape."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]

    def __init__(self, title: str, options: list[tuple[str, Any]], current: Any = None) -> None:
        super().__init__()
        self.title_text = title
        self.options = options
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield OptionList(
                *[Option(label, id=str(i)) for i, (label, _) in enumerate(self.options)], id="choices"
            )
            yield Label("enter: choose · escape: cancel", classes="dialog-help")

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        values = [v for _, v in self.options]
        ol.highlighted = values.index(self.current) if self.current in values else 0
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.options[int(event.option.id or 0)][1])


class NumberScreen(ModalScreen[float | None]):
    """Enter a number between lo and hi; dismisses with it, or None on escape."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]

    def __init__(self, title: str, value: float, lo: float, hi: float, integer: bool = False) -> None:
        super().__init__()
        self.title_text, self.value, self.lo, self.hi, self.integer = title, value, lo, hi, integer

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(value=f"{self.value:g}", type="integer" if self.integer else "number", id="number")
            yield Label(
                f"{self.lo:g} to {self.hi:g} · enter: apply · escape: cancel",
                classes="dialog-help",
                id="number-help",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:  # ASCII digits only: float() would take Arabic-Indic or fullwidth digits too
            v = float(event.value) if event.value.isascii() else float("nan")
        except ValueError:
            v = float("nan")
        if not self.lo <= v <= self.hi:
            self.query_one("#number-help", Label).update(
                f"[b]must be {self.lo:g} to {self.hi:g}[/b] · escape: cancel"
            )
            return
        self.dismiss(int(v) if self.integer else v)


class OpenScreen(ModalScreen[Path | None]):
    """Open a site file: type a path (the field has the focus; enter opens what was typed, relative to
    the current folder, else to the folder shown), or tab to the list of the folder's .toml files."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder
        self.files = sorted(p for p in folder.glob("*.toml") if p.is_file())

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Open a site file", classes="dialog-title")
            yield Input(placeholder="path/to/site.toml", id="path")
            yield OptionList(*[Option(p.name, id=str(i)) for i, p in enumerate(self.files)], id="files")
            yield Label(
                f"{self.folder} · type a path, enter: open · tab: the list · escape: cancel",
                classes="dialog-help",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def typed(self, value: str) -> Path:
        """The file a typed path names: as typed if it exists from the current folder, else in the folder
        shown."""
        path = Path(value).expanduser()
        if path.is_absolute() or path.exists():
            return path
        return self.folder / path

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(self.typed(event.value.strip()))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.files[int(event.option.id or 0)])


class MessageScreen(ModalScreen[None]):
    """A message to read (e.g. the problems of a bad site file); any of enter/escape closes it."""

    BINDINGS = [Binding("escape,enter,q", "dismiss(None)", "close")]

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self.title_text, self.lines = title, lines

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(self.title_text, classes="dialog-title")
            yield Static("\n".join(self.lines), id="message", markup=False)
            yield Label("enter: close", classes="dialog-help")
