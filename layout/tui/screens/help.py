"""f1 or ?: every key of the app and the map on one screen, in two columns that fit 80 x 24 (smaller
terminals scroll them)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from layout.tui.footer import DialogFooter

# keys Textual's own bindings give every app (shown too, so the list is the whole story)
BUILT_IN = (("ctrl+p", "command palette"), ("tab", "next pane"), ("escape", "close a dialog"))
# a key's name as the help shows it (Textual's key names)
NAMES = {
    "slash": "/",
    "question_mark": "?",
    "plus": "+",
    "equals_sign": "=",
    "minus": "-",
    "right_square_bracket": "]",
    "left_square_bracket": "[",
    "enter": "enter",
    "number_sign": "#",
}


def key_name(binding: Binding) -> str:
    if binding.key_display:
        return binding.key_display
    return "/".join(NAMES.get(k, k.replace("ctrl+", "^")) for k in binding.key.split(","))


def key_rows(
    groups: Iterable[Sequence[Binding]], titles: Mapping[str, str] | None = None
) -> list[tuple[str, str]]:
    """(key, what it does) of each binding, in order (``titles``: a fuller description by action name),
    each binding once, the arrows (with h j k l), the shift+arrows (with H J K L), + and -, n and N, ] and
    [ and the six tab keys each in one row; what one key does in different modes (escape) in one row."""
    rows: list[tuple[str, str]] = []
    titles = titles or {}
    for bindings in groups:
        for b in bindings:
            action = b.action
            if action.startswith("move("):
                key, what = "arrows/hjkl", "move the cursor"
            elif action.startswith("pan("):
                key, what = "shift+arrows/HJKL", "pan the map"
            elif action.startswith("zoom("):
                key, what = "+/-", "zoom in / out"
            elif action.startswith("tab("):
                key, what = "1-6", "map budgets violations BOM cabling optimise"
            elif action in ("next_violation", "prev_violation"):
                key, what = "n/N", "next / previous violation"
            elif action in ("next_hall", "prev_hall"):
                key, what = "]/[", "next / previous hall"
            else:
                key, what = key_name(b), titles.get(action, b.description)
            same_key = next((i for i, (k, _) in enumerate(rows) if k == key), None)
            if same_key is not None and what not in rows[same_key][1]:
                rows[same_key] = (key, f"{rows[same_key][1]} / {what}")
            elif same_key is None:
                rows.append((key, what))
    return rows + [r for r in BUILT_IN if r not in rows]


def key_table(rows: list[tuple[str, str]], columns: int = 2) -> Table:
    """The rows in ``columns`` side-by-side key/description pairs, filled down then across."""
    t = Table.grid(padding=(0, 1), expand=True)
    per = -(-len(rows) // columns)
    for _ in range(columns):
        t.add_column(justify="right", style="bold", no_wrap=True)
        t.add_column(no_wrap=True, overflow="ellipsis", ratio=1)
    for i in range(per):
        cells: list[str | Text] = []
        for c in range(columns):
            j = c * per + i
            key, what = rows[j] if j < len(rows) else ("", "")
            cells += [key, what]
        t.add_row(*cells)
    return t


class HelpScreen(ModalScreen[None]):
    """Every key; any of escape, f1, ?, enter or q closes it; the arrows and page up/down scroll it
    where the terminal is too small for all of it (its footer says so)."""

    BINDINGS = [Binding("escape,f1,question_mark,enter,q", "dismiss(None)", "close")]
    FOOTER_HINTS = (("up", "scroll"), ("pagedown", "page"))  # the keys' scroll area's own keys
    CHROME = 4  # lines besides the keys: the dialog's border and title, and the footer (its keys)

    def __init__(self, rows: list[tuple[str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Label(
                "Keys (the command palette, ctrl+p, lists every action by name)", classes="dialog-title"
            )
            with VerticalScroll(id="keys-scroll"):
                yield Static(key_table(self.rows), id="keys")
        yield DialogFooter()  # escape (f1, ?) close, the arrows and page down scroll

    def on_mount(self) -> None:
        self.fit()
        self.query_one("#keys-scroll").focus()

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        """The keys take what the screen leaves beside the dialog's other lines; the rest scrolls."""
        self.query_one("#keys-scroll").styles.max_height = max(self.size.height - self.CHROME, 3)
