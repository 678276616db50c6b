"""Small modal dialogs: pick one of a list, enter a number, open a file, read a message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from layout.tui.footer import DialogFooter

# the Input's own editing keys (backspace, delete, enter, arrows, ctrl+u, ...) and the action each runs
_INPUT_KEYS = {k: b.action for b in Input.BINDINGS if isinstance(b, Binding) for k in b.key.split(",")}


class DialogInput(Input):
    """An Input whose editing keys act in the order they were typed. Input inserts a printable key when
    the key reaches it, but runs backspace, delete, enter and the cursor keys as bindings, once the key
    has bubbled up past it: in a burst (a fast typist, tmux send-keys, a paste) "backspace backspace 3 7"
    inserted 3 and 7 first and then deleted them, and enter submitted before the digits. Here every key
    the Input binds runs its action at once, in order."""

    async def _on_key(self, event: events.Key) -> None:
        action = _INPUT_KEYS.get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        await self.run_action(action)


class FieldDialog(ModalScreen[Any]):
    """A dialog whose typing goes into its text field from the first key on, in order. Its field is
    mounted (and gets its initial value) and focused a moment after the screen is pushed; keys that
    arrive before that (a burst typed right after the key that opened the dialog, or a paste) reached a
    field without its value or the screen with nothing focused, were lost or applied out of order, and
    the dialog then applied a value the user did not type. Here the field cannot take the focus until it
    is ready: every key until then comes to the screen, in order, and is kept; when the field is ready
    they are applied to it in that order (characters at the cursor, backspace, delete, enter to submit),
    and it takes the focus. Escape stays the screen's: cancel."""

    AUTO_FOCUS = None  # nothing until the field is ready (not the list of the open dialog either)

    def __init__(self) -> None:
        super().__init__()
        self._early: list[events.Key] | None = []  # None once the field is ready

    @staticmethod
    def field(field: DialogInput) -> DialogInput:
        """The dialog's field, not focusable until it is ready."""
        field.can_focus = False
        return field

    def on_mount(self) -> None:
        self.call_after_refresh(self._field_ready)

    def _field_ready(self) -> None:
        field = self.query_one(Input)
        field.can_focus = True
        early, self._early = self._early or [], None
        for key in early:
            if self._apply(field, key):
                return
        field.focus()

    def on_key(self, event: events.Key) -> None:
        field = self.query_one(Input)
        if event.key == "escape" or (self._early is None and self.focused is not None):
            return  # the focused widget's (the field's, or the open dialog's list after tab)
        event.stop()
        event.prevent_default()
        if self._early is not None:
            self._early.append(event)
        elif not self._apply(field, event):
            field.focus()

    @staticmethod
    def _apply(field: Input, key: events.Key) -> bool:
        """Apply ``key`` to ``field`` as the field would; True when it submitted the field."""
        if key.key == "backspace":
            field.action_delete_left()
        elif key.key == "delete":
            field.action_delete_right()
        elif key.key == "enter":
            field.post_message(Input.Submitted(field, field.value))
            return True
        elif key.is_printable and key.character is not None:
            field.insert_text_at_cursor(key.character)
        return False


class ChoiceScreen(ModalScreen[Any]):
    """Pick one value from a list; dismisses with the value, or None on escape. ``refused``: per value
    that cannot work, why: shown greyed out with its reason, and not chosen."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]
    FOOTER_HINTS = (("enter", "choose"),)  # the list's own key

    def __init__(
        self,
        title: str,
        options: list[tuple[str, Any]],
        current: Any = None,
        refused: dict[Any, str] | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.options = options
        self.current = current
        self.refused = refused or {}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield OptionList(
                *[
                    Option(
                        Text.assemble(label, (f"  ({self.refused[v]})", "italic"))
                        if v in self.refused
                        else label,
                        id=str(i),
                        disabled=v in self.refused,
                    )
                    for i, (label, v) in enumerate(self.options)
                ],
                id="choices",
            )
            yield Label("enter: choose · escape: cancel", classes="dialog-help")
        yield DialogFooter()

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        values = [v for _, v in self.options]
        usable = [i for i, v in enumerate(values) if v not in self.refused]
        at = values.index(self.current) if self.current in values else (usable[0] if usable else 0)
        ol.highlighted = at if at in usable or not usable else usable[0]
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.options[int(event.option.id or 0)][1])


class NumberScreen(FieldDialog):
    """Enter a number between lo and hi; dismisses with it, or None on escape."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]
    FOOTER_HINTS = (("enter", "apply"),)  # the field's own key

    def __init__(self, title: str, value: float, lo: float, hi: float, integer: bool = False) -> None:
        super().__init__()
        self.title_text, self.value, self.lo, self.hi, self.integer = title, value, lo, hi, integer

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield self.field(
                DialogInput(
                    value=f"{self.value:g}", type="integer" if self.integer else "number", id="number"
                )
            )
            yield Label(
                f"{self.lo:g} to {self.hi:g} · enter: apply · escape: cancel",
                classes="dialog-help",
                id="number-help",
            )
        yield DialogFooter()

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


class OpenScreen(FieldDialog):
    """Open a site file: type a path (the field has the focus; enter opens what was typed, relative to
    the current folder, else to the folder shown), or tab to the list of the folder's .toml files."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]
    FOOTER_HINTS = (("enter", "open"), ("tab", "the list"))

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder
        self.files = sorted(p for p in folder.glob("*.toml") if p.is_file())

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Open a site file", classes="dialog-title")
            yield self.field(DialogInput(placeholder="path/to/site.toml", id="path"))
            yield OptionList(*[Option(p.name, id=str(i)) for i, p in enumerate(self.files)], id="files")
            yield Label(
                f"{self.folder} · type a path, enter: open · tab: the list · escape: cancel",
                classes="dialog-help",
            )
        yield DialogFooter()

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


class FolderScreen(FieldDialog):
    """Choose the folder exports go to: the field holds the current one; enter takes what it shows
    (relative to the current folder), escape keeps the old one."""

    BINDINGS = [Binding("escape", "dismiss(None)", "cancel")]
    FOOTER_HINTS = (("enter", "use it"),)

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Export into the folder", classes="dialog-title")
            yield self.field(DialogInput(value=str(self.folder), id="folder"))
            yield Label("enter: use it (made if missing) · escape: cancel", classes="dialog-help")
        yield DialogFooter()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(Path(event.value.strip()).expanduser().resolve())


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
        yield DialogFooter()
