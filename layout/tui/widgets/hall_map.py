"""The hall map: one hall drawn to scale, racks as coloured cells, a cursor, zoom and pan."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache
from itertools import groupby

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

from layout.scene import palette
from layout.tui.floor import (
    ASPECT,
    CABINET,
    COLUMN,
    FLOOR,
    KEEPOUT,
    OUTSIDE,
    RACK,
    RACK_KINDS,
    TRACE,
    TRACE_FAR,
    TRACE_NEAR,
    TRAY,
    USER_RACK,
    USER_ROW,
    WALL,
    Grid,
    HallFloor,
    UserRowBox,
    rasterise,
    row_labels,
    trace_overlay,
    with_outline,
)
from layout.tui.trace import TRACE_CLASSES, Trace

ZOOM_STEP = 1.5  # + and - change the scale by this factor
MIN_M_PER_COL, MAX_M_PER_COL = 0.05, 50.0

KIND_COLOURS = palette.KIND_COLOURS  # the drawings' colours (layout.scene.palette), in the map too
FLOOR_BG = "#3a3a3a"
MAP_BG = "#121212"
GLYPHS: dict[int, tuple[str, Style]] = {
    OUTSIDE: (" ", Style(bgcolor=MAP_BG)),
    FLOOR: (" ", Style(bgcolor=FLOOR_BG)),
    COLUMN: ("■", Style(color="#ffffff", bgcolor="#6c6c6c")),
    KEEPOUT: ("╳", Style(color="#af5f5f", bgcolor="#3a1c1c")),
    TRAY: ("·", Style(color="#a8a8a8", bgcolor=FLOOR_BG)),
    USER_ROW: ("▒", Style(color="#d7d7af", bgcolor=FLOOR_BG)),
    CABINET: ("▪", Style(color="#ffffff", bgcolor=palette.COLOURS["fibre_cabinet"].hex)),
}
# the outline of the hall, by which neighbours are wall too (north 1, east 2, south 4, west 8)
WALL_CHARS = "▪│─└││┌├─┘─┴┐┤┬┼"
WALL_STYLE = Style(color="#bcbcbc", bgcolor=FLOOR_BG)
GLYPHS.update({WALL + m: (ch, WALL_STYLE) for m, ch in enumerate(WALL_CHARS)})
# a traced cable's route by media class (bright on the dark floor; the PDF's are for paper)
TRACE_COLOURS = {
    "dac": "#ff8700",
    "aec": "#ffd700",
    "mmf": "#d787ff",
    "smf": "#5fafff",
    "coherent": "#5fd75f",
    "utp": "#e4e4e4",
    "other": "#ff5f5f",
}
TRACE_GLYPHS: dict[int, tuple[str, Style]] = {
    TRACE_NEAR: ("◆", Style(color="#ffffff", bgcolor="#d70000", bold=True)),
    TRACE_FAR: ("▣", Style(color="#000000", bgcolor="#ffd700", bold=True)),
    **{
        TRACE + 2 * i + upright: (
            "┃" if upright else "━",
            Style(color=TRACE_COLOURS[c], bgcolor=FLOOR_BG, bold=True),
        )
        for i, c in enumerate(TRACE_CLASSES)
        for upright in (0, 1)
    },
}
LABEL_STYLE = Style(color="#ffffff", bgcolor="#303030", bold=True)
LABEL_MODES = ("ids", "kw", "off")  # # cycles: row ids, row ids with their IT kW, none
GHOST = ("▒", Style(color="#ffff5f", bgcolor="#5f5f00", bold=True))
NO_SITE = (
    "No site open.",
    "",
    "ctrl+o  open a site file (sites/ holds examples)",
    "f1      every key",
    "q       quit",
    "",
    "or start with one: dclayout tui sites/NAME.toml",
)
NO_SITE_STYLE = Style(color="#d0d0d0", bgcolor=MAP_BG)
CURSOR = Style(color="#000000", bgcolor="#ffffff", bold=True)
REVERSE = Style(reverse=True)


@cache
def glyphs_for(by: str) -> dict[int, tuple[str, Style]]:
    """Every cell code's glyph and style, racks coloured by ``kind`` or by ``kw`` use (built once: parsing
    the colours of a Style at each line of each repaint cost more than drawing the line)."""
    colours = palette.FILLS if by == "kw" else tuple(KIND_COLOURS[k] for k in RACK_KINDS)
    racks = {RACK + i: ("█", Style(color=c, bgcolor=FLOOR_BG)) for i, c in enumerate(colours)}
    user = {USER_RACK + i: ("▓", Style(color=c, bgcolor=FLOOR_BG)) for i, c in enumerate(colours)}
    return {**GLYPHS, **racks, **user}


class HallMap(Widget, can_focus=True):
    """A hall to scale. Arrows (or h j k l) move the cursor; shift+arrows (or H J K L) pan; + and - zoom;
    0 fits the hall."""

    # enter and escape first: while a row is moved the footer leads with them (a key's first binding
    # that check_action allows is the one it runs and the footer shows)
    BINDINGS = [
        Binding("enter", "drop", "drop row"),
        Binding("escape", "cancel_move", "cancel move"),
        Binding("escape", "clear_trace", "clear trace"),
        # the cursor keys are shown in the footer only while a row is moved (the app's footer_hidden)
        Binding("up,k", "move(0, -1)", "move row", key_display="↑↓←→/hjkl"),
        Binding("down,j", "move(0, 1)", "cursor", show=False),
        Binding("left,h", "move(-1, 0)", "cursor", show=False),
        Binding("right,l", "move(1, 0)", "cursor", show=False),
        Binding("shift+up,K", "pan(0, -1)", "pan", show=False),
        Binding("shift+down,J", "pan(0, 1)", "pan", show=False),
        Binding("shift+left,H", "pan(-1, 0)", "pan", show=False),
        Binding("shift+right,L", "pan(1, 0)", "pan", show=False),
        Binding("plus,equals_sign", "zoom(-1)", "zoom in", show=False, key_display="+"),
        Binding("minus", "zoom(1)", "zoom out", show=False),
        Binding("0", "fit", "fit", show=False),
        Binding("c", "colour", "colour: kind / kW", show=False),
        Binding("number_sign", "labels", "row labels: ids / kW / none", show=False, key_display="#"),
    ]

    colour_by: reactive[str] = reactive("kind")
    # called at once with each CursorMoved (before it is posted), so that what follows the cursor (the
    # inspector) is updated in the frame that shows the cursor: the posted message reaches the app only
    # after the screen has painted the map once, and what it changes is painted one frame (~17 ms) later
    follow: Callable[[CursorMoved], None] | None = None

    class CursorMoved(Message):
        """The cursor is on a new cell; x_m, y_m is its centre in site metres."""

        def __init__(self, hall: str, x_m: float, y_m: float, rack: int) -> None:
            super().__init__()
            self.hall, self.x_m, self.y_m, self.rack = hall, x_m, y_m, rack

    class GhostDropped(Message):
        """Enter pressed while moving a row: ``box`` is where it was dropped."""

        def __init__(self, box: UserRowBox) -> None:
            super().__init__()
            self.box = box

    class GhostCancelled(Message):
        """Escape pressed while moving a row."""

    class TraceCleared(Message):
        """Escape pressed while a trace is shown (and no row is being moved)."""

    class Redrawn(Message):
        """The scale or colouring changed."""

    class FocusChanged(Message):
        """The map got or lost the keys (``focused``): the app shows which pane has them."""

        def __init__(self, focused: bool) -> None:
            super().__init__()
            self.focused = focused

    def on_focus(self) -> None:
        self.post_message(self.FocusChanged(True))

    def on_blur(self) -> None:
        self.post_message(self.FocusChanged(False))

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.floor: HallFloor | None = None
        self.m_per_col = 1.0
        self.grid: Grid | None = None
        self.codes = np.zeros((0, 0), dtype=np.int16)  # the hall raster (rasterise)
        self.cells = self.codes  # what is drawn: the raster with the hall's outline (with_outline)
        self.rack = np.zeros((0, 0), dtype=np.int64)
        self.cursor = (0, 0)  # (col, line) in the hall raster
        self.user_moves = 0  # the moves of the cursor by keys, pans and clicks (not goto, zoom or fit)
        self.view = (0, 0)  # raster cell shown at the top-left corner
        self.ghost: UserRowBox | None = None
        self._fit_pending = True
        self.fitted = False  # the view is the fit of the hall (a resize fits it again)
        self.trace: Trace | None = None  # the traced rack's cables (drawn over the hall)
        self.overlay: np.ndarray | None = None  # trace_overlay at the current grid, None without a trace
        self.label_mode = LABEL_MODES[0]
        self.present: set[int] = set()  # the cell codes of the hall raster (what the legend explains)
        self.labels: dict[int, list[tuple[int, str]]] = {}  # line -> (col, text) of the row labels on it

    # ------------------------------------------------------------------------------------ data
    def show_floor(self, floor: HallFloor, keep_view: bool = True) -> None:
        """Draw ``floor``. Keeps zoom and cursor (in metres) if it is the same hall and keep_view."""
        same = keep_view and self.floor is not None and self.floor.key == floor.key and self.grid is not None
        where = self.cursor_m if same else None
        self.floor = floor
        if same and where is not None:
            self._rebuild(where)
        else:  # another hall: fit it, cursor in its middle
            self.grid = None
            self._fit_pending = True
            if self.size.width and self.size.height:
                self.action_fit()
        self.refresh()

    def set_trace(self, trace: Trace | None) -> None:
        """Draw ``trace`` (a rack's cables along their routes) over the hall, or no trace."""
        self.trace = trace
        self._draw_trace()
        self.refresh()
        self.refresh_bindings()  # escape clears the trace now (or no more): the footer says so

    def _draw_trace(self) -> None:
        t = self.trace
        if t is None or self.grid is None or self.floor is None:
            self.overlay = None
            return
        seg = t.segments
        racks = self.floor.racks
        if len(racks):
            no = racks["rack_no"].to_numpy(np.int64)
            boxes = racks[["x0", "y0", "x1", "y1"]].to_numpy(float)
            near, far = boxes[no == t.rack_no], boxes[np.isin(no, t.far_racks)]
        else:
            near = far = np.zeros((0, 4))
        self.overlay = trace_overlay(
            self.grid,
            seg[["x0_m", "y0_m", "x1_m", "y1_m"]].to_numpy(float),
            seg["cls"].to_numpy(np.int64),
            near,
            far,
        )

    def _place_labels(self) -> None:
        self.labels = {}
        if self.floor is None or self.grid is None or self.label_mode == "off":
            return
        for line, col, text in row_labels(self.floor.rows, self.grid, self.cells, self.label_mode == "kw"):
            self.labels.setdefault(line, []).append((col, text))

    def action_labels(self) -> None:
        """Cycle the row labels: ids, ids with each row's IT kW, none."""
        self.label_mode = LABEL_MODES[(LABEL_MODES.index(self.label_mode) + 1) % len(LABEL_MODES)]
        self._place_labels()
        self.refresh()
        self.post_message(self.Redrawn())

    def set_ghost(self, box: UserRowBox | None) -> None:
        self.ghost = box
        self.refresh()
        self.refresh_bindings()  # the footer of moving a row (enter, escape, the cursor keys), or not

    @property
    def cursor_m(self) -> tuple[float, float] | None:
        if self.grid is None:
            return None
        return self.grid.centre(*self.cursor)

    @property
    def rack_at_cursor(self) -> int:
        if self.grid is None or self.rack.size == 0:
            return -1
        col, line = self.cursor
        return int(self.rack[line, col])

    def goto(self, x_m: float, y_m: float, rack: int = -1) -> None:
        """Put the cursor on the cell holding (x_m, y_m) and centre the view on it; with ``rack`` (its
        number in the racks table) on the nearest cell that shows that rack (a cell a neighbour shares
        shows the neighbour)."""
        if self.grid is None:
            return
        col, line = self.grid.cell(x_m, y_m)
        if rack >= 0 and self.rack.size and int(self.rack[line, col]) != rack:
            at = np.argwhere(self.rack == rack)
            if len(at):
                k = int(np.argmin(np.abs(at[:, 0] - line) + np.abs(at[:, 1] - col)))
                line, col = (int(v) for v in at[k])
        self.cursor = (col, line)
        self._centre_on_cursor()
        self._moved()

    def _rebuild(self, keep_m: tuple[float, float] | None = None) -> None:
        if self.floor is None:
            return
        self.grid = Grid.for_hall(self.floor, self.m_per_col)
        self.codes, self.rack = rasterise(self.floor, self.grid, self.colour_by)
        self.cells = with_outline(self.codes)
        self.present = {int(c) for c in np.unique(self.codes)}
        self._place_labels()
        self._draw_trace()
        if keep_m is not None:
            self.cursor = self.grid.cell(*keep_m)
        else:
            self.cursor = (min(self.cursor[0], self.grid.cols - 1), min(self.cursor[1], self.grid.lines - 1))
        self._scroll_to_cursor()
        self.refresh()

    def on_resize(self) -> None:
        if (self._fit_pending or self.fitted) and self.floor is not None:
            self.action_fit()
        else:
            self._scroll_to_cursor()

    # --------------------------------------------------------------------------------- actions
    def action_fit(self) -> None:
        """The largest scale at which the whole hall fits the widget."""
        if self.floor is None:
            return
        w, h = max(self.size.width, 2), max(self.size.height, 2)
        x0, y0, x1, y1 = self.floor.bounds
        fit = max((x1 - x0) / (w - 1), (y1 - y0) / (ASPECT * (h - 1)))
        self._fit_pending = not (self.size.width and self.size.height)
        self.fitted = True
        keep = self.cursor_m
        self.m_per_col = min(max(round(fit * 1.0001, 4), MIN_M_PER_COL), MAX_M_PER_COL)
        self._rebuild(keep)
        if keep is None:
            assert self.grid is not None
            self.cursor = self.grid.cell((x0 + x1) / 2, (y0 + y1) / 2)
        self.view = (0, 0)
        self._scroll_to_cursor()
        self._moved()
        self.post_message(self.Redrawn())

    def action_zoom(self, step: int) -> None:
        """step -1 zooms in (fewer metres per column), +1 zooms out."""
        new = min(max(round(self.m_per_col * ZOOM_STEP**step, 4), MIN_M_PER_COL), MAX_M_PER_COL)
        if new == self.m_per_col or self.grid is None:
            return
        self.fitted = False
        keep = self.cursor_m
        self.m_per_col = new
        self._rebuild(keep)
        self._centre_on_cursor()
        self.post_message(self.Redrawn())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "drop":
            return self.ghost is not None
        if action == "cancel_move":
            return self.ghost is not None
        if action == "clear_trace":
            return self.ghost is None and self.trace is not None
        return True

    def action_drop(self) -> None:
        if self.ghost is not None:
            self.post_message(self.GhostDropped(self.ghost))

    def action_cancel_move(self) -> None:
        """Escape while a row is moved: stop moving it."""
        if self.ghost is not None:
            self.post_message(self.GhostCancelled())

    def action_clear_trace(self) -> None:
        """Escape while a trace is shown (and no row is moved): clear it."""
        if self.trace is not None:
            self.post_message(self.TraceCleared())

    def action_move(self, dc: int, dl: int) -> None:
        if self.grid is None:
            return
        if self.ghost is not None:  # moving a row: it goes one cell, the cursor with it
            g, dx, dy = self.ghost, dc * self.grid.m_per_col, -dl * self.grid.m_per_line
            self.ghost = replace(g, x0=g.x0 + dx, x1=g.x1 + dx, y0=g.y0 + dy, y1=g.y1 + dy)
        col = min(max(self.cursor[0] + dc, 0), self.grid.cols - 1)
        line = min(max(self.cursor[1] + dl, 0), self.grid.lines - 1)
        before, view = self.cursor[1], self.view
        self.user_moves += 1
        self.cursor = (col, line)
        self._scroll_to_cursor()
        self._moved()
        if self.ghost is None and self.view == view:  # only the cursor's old and new lines change
            width = self.size.width
            self.refresh(Region(0, before - view[1], width, 1), Region(0, line - view[1], width, 1))
        else:
            self.refresh()

    def action_pan(self, dc: int, dl: int) -> None:
        if self.grid is None:
            return
        self.fitted = False
        self.user_moves += 1
        w, h = self.size.width, self.size.height
        ox = self.view[0] + dc * max(1, w // 4)
        oy = self.view[1] + dl * max(1, h // 4)
        self.view = (
            min(max(ox, -w // 2), max(self.grid.cols - w // 2, 0)),
            min(max(oy, -h // 2), max(self.grid.lines - h // 2, 0)),
        )
        col = min(max(self.cursor[0], self.view[0]), self.view[0] + w - 1)
        line = min(max(self.cursor[1], self.view[1]), self.view[1] + h - 1)
        self.cursor = (min(max(col, 0), self.grid.cols - 1), min(max(line, 0), self.grid.lines - 1))
        self._moved()
        self.refresh()

    def action_colour(self) -> None:
        self.colour_by = "kw" if self.colour_by == "kind" else "kind"

    def watch_colour_by(self) -> None:
        self._rebuild(self.cursor_m)
        self.post_message(self.Redrawn())

    # ------------------------------------------------------------------------------------- mouse
    def cell_at(self, x: int, y: int) -> tuple[int, int] | None:
        """The hall raster cell (col, line) under the widget's column ``x`` and line ``y``, or None."""
        if self.grid is None:
            return None
        col, line = self.view[0] + x, self.view[1] + y
        if 0 <= col < self.grid.cols and 0 <= line < self.grid.lines:
            return col, line
        return None

    def on_click(self, event: events.Click) -> None:
        """A click puts the cursor on the cell clicked (the inspector then shows its rack); while a row
        is being moved, it moves there; a double click there drops it."""
        cell = self.cell_at(event.x, event.y)
        if cell is None:
            return
        self.focus()
        dc, dl = cell[0] - self.cursor[0], cell[1] - self.cursor[1]
        if dc or dl:
            self.action_move(dc, dl)
        if self.ghost is not None and event.chain >= 2:
            self.action_drop()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        """The wheel zooms in at the cursor; with shift it pans up."""
        event.stop()
        if event.shift:
            self.action_pan(0, -1)
        else:
            self.action_zoom(-1)

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        if event.shift:
            self.action_pan(0, 1)
        else:
            self.action_zoom(1)

    # ---------------------------------------------------------------------------------- viewport
    def _centre_on_cursor(self) -> None:
        w, h = self.size.width, self.size.height
        self.view = (self.cursor[0] - w // 2, self.cursor[1] - h // 2)
        self._clamp_offset()
        self.refresh()

    def _scroll_to_cursor(self) -> None:
        w, h = max(self.size.width, 1), max(self.size.height, 1)
        ox, oy = self.view
        col, line = self.cursor
        if col < ox:
            ox = col
        elif col >= ox + w:
            ox = col - w + 1
        if line < oy:
            oy = line
        elif line >= oy + h:
            oy = line - h + 1
        self.view = (ox, oy)
        self._clamp_offset()

    def _clamp_offset(self) -> None:
        if self.grid is None:
            return
        w, h = self.size.width, self.size.height
        ox, oy = self.view
        # a hall smaller than the widget is centred in it; a larger one never leaves a gap at an edge
        ox = -((w - self.grid.cols) // 2) if self.grid.cols <= w else min(max(ox, 0), self.grid.cols - w)
        oy = -((h - self.grid.lines) // 2) if self.grid.lines <= h else min(max(oy, 0), self.grid.lines - h)
        self.view = (ox, oy)

    def _moved(self) -> None:
        if self.floor is None or self.grid is None:
            return
        x, y = self.grid.centre(*self.cursor)
        moved = self.CursorMoved(self.floor.key, x, y, self.rack_at_cursor)
        if self.follow is not None:  # in the same frame as the cursor (a message is a frame later)
            self.follow(moved)
        self.post_message(moved)

    # ------------------------------------------------------------------------------------ render
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self.floor is None:  # no site open: say what to do
            top = (self.size.height - len(NO_SITE)) // 2
            text = NO_SITE[y - top] if 0 <= y - top < len(NO_SITE) else ""
            pad = max((width - max(len(t) for t in NO_SITE)) // 2, 0)
            return Strip([Segment((" " * pad + text).ljust(width)[:width], NO_SITE_STYLE)], width)
        line = self.view[1] + y
        if self.grid is None or not 0 <= line < self.grid.lines:
            return Strip.blank(width, GLYPHS[OUTSIDE][1])
        glyphs = glyphs_for(self.colour_by)
        c0 = self.view[0]
        lo, hi = max(c0, 0), min(c0 + width, self.grid.cols)
        cells: list[tuple[str, Style]] = [GLYPHS[OUTSIDE]] * width
        row = self.cells[line]
        for col in range(lo, hi):
            cells[col - c0] = glyphs[int(row[col])]
        if self.overlay is not None:
            over = self.overlay[line]
            for col in np.flatnonzero(over[lo:hi] >= 0).tolist():
                cells[col + lo - c0] = TRACE_GLYPHS[int(over[col + lo])]
        for col, text in self.labels.get(line, ()):
            for k, ch in enumerate(text):
                if lo <= col + k < hi:
                    cells[col + k - c0] = (ch, LABEL_STYLE)
        if self.ghost is not None:
            g0, g1 = self.grid.span(np.array([self.ghost.x0]), np.array([self.ghost.x1]), "x")
            l0, l1 = self.grid.span(np.array([self.ghost.y0]), np.array([self.ghost.y1]), "y")
            if l0[0] <= line <= l1[0]:
                for col in range(max(int(g0[0]), lo), min(int(g1[0]), hi - 1) + 1):
                    cells[col - c0] = GHOST
        if line == self.cursor[1] and lo <= self.cursor[0] < hi:
            ch, st = cells[self.cursor[0] - c0]
            cells[self.cursor[0] - c0] = (
                "+" if ch == " " else ch,
                CURSOR if self.has_focus else st + REVERSE,
            )
        segments = [
            Segment("".join(ch for ch, _ in run), style)
            for style, run in ((s, list(g)) for s, g in groupby(cells, key=lambda c: c[1]))
        ]
        return Strip(segments, width)


def legend(by: str, where: str, present: set[int] | None = None, trace: Trace | None = None) -> Text:
    """One line: what the colours and glyphs on the map mean (``present``: the cell codes drawn, None:
    all), the trace if there is one, then the hall and the scale."""
    t = Text()
    if trace is not None:
        far = len(trace.far_racks)
        t.append(f"trace {trace.rack_id}: {len(trace)} links, {far} racks ", Style(bold=True))
        t.append(*TRACE_GLYPHS[TRACE_NEAR]).append("here ")
        if far:
            t.append(*TRACE_GLYPHS[TRACE_FAR]).append("far end ")
        drawn = set(trace.segments["cls"].tolist())
        for i, c in enumerate(TRACE_CLASSES):
            if i in drawn:
                t.append(*TRACE_GLYPHS[TRACE + 2 * i]).append(f"{c} ")
        t.append("· ")

    def shows(code: int) -> bool:
        return present is None or code in present

    if by == "kw":
        t.append("GPU kW: ")
        for band in palette.BANDS:
            t.append("█", Style(color=band.colour)).append(
                f"{band.label.replace(' %', '%').replace('over the limit', 'over')} "
            )
        t.append("█", Style(color=KIND_COLOURS["network"])).append("net ")
    else:
        names = {"gpu": "gpu", "network": "net", "spine": "spine", "core": "MDF"}
        for i, kind in enumerate(RACK_KINDS):  # the kinds drawn (the four main ones always without a raster)
            on_map = present is not None and (RACK + i in present or USER_RACK + i in present)
            if on_map or (present is None and kind in names):
                t.append("█", Style(color=KIND_COLOURS[kind])).append(f"{names.get(kind, kind)} ")
    if present is None or any(c >= USER_RACK for c in present):
        t.append("▓").append("user row ")
    named = (
        (COLUMN, "col"),
        (KEEPOUT, "keep-out"),
        (TRAY, "tray"),
        (USER_ROW, "empty user row"),
        (CABINET, "fibre cab."),
    )
    for code, name in named:
        if shows(code):
            ch, st = GLYPHS[code]
            t.append(ch, st).append(f"{name} ")
    if where:
        t.append(f"· {where}", Style(dim=True))
    return t
