"""The inspector: what is under the map cursor, and the hall it is in."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from shapely.geometry import Point
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from layout.load import Inputs
from layout.tui.floor import HallFloor


def kv_table(rows: list[tuple[str, RenderableType]]) -> Table:
    t = Table.grid(padding=(0, 1))
    t.add_column(style="dim", no_wrap=True)
    t.add_column(overflow="fold")
    for k, v in rows:
        t.add_row(k, v)
    return t


def bar(value: float, limit: float, width: int = 12) -> Text:
    """A bar of value against limit, red when over."""
    frac = value / limit if limit > 0 else 0.0
    filled = min(width, round(min(frac, 1.0) * width))
    colour = "green" if frac < 0.7 else "yellow" if frac < 0.9 else "dark_orange" if frac <= 1.0 else "red"
    return Text("█" * filled, style=colour).append("░" * (width - filled), style="grey35")


def hall_section(inputs: Inputs, key: str) -> RenderableType:
    b_id, h_id = key.split("/")
    b = next(b for b in inputs.site.building if b.id == b_id)
    h = next(h for h in b.hall if h.id == h_id)
    rows: list[tuple[str, RenderableType]] = [
        ("cooling", h.cooling),
        ("max rack", f"{h.max_rack_kw:g} kW"),
        ("floor", f"{h.floor_load_kg_m2:g} kg/m²"),
        ("rows", f"along {h.row_axis}, ≤ {h.max_row_racks} racks"),
    ]
    if h.it_mw:
        rows.append(("IT limit", f"{h.it_mw:g} MW"))
    return Group(Text(f"Hall {key}", style="bold"), kv_table(rows))


def point_section(floor: HallFloor, x: float, y: float) -> RenderableType:
    rows: list[tuple[str, RenderableType]] = [("cursor", f"({x:.1f}, {y:.1f}) m")]
    box = floor.user_row_at(x, y)
    if box is not None:
        rows.append(("user row", f"{box.index + 1}: {box.racks} × {box.template}, along {box.axis}"))
        rows.append(("origin", f"({box.x0:g}, {box.y0:g}) m"))
    elif floor.column_at(x, y):
        rows.append(("here", "building column"))
    elif (reason := floor.keepout_at(x, y)) is not None:
        rows.append(("here", f"keep-out: {reason}"))
    elif not floor.polygon.contains(Point(x, y)):
        rows.append(("here", "outside the hall"))
    return kv_table(rows)


class Inspector(VerticalScroll):
    """Shows the selection: the rack (template, kW against the limit, devices, links and media), the
    user row, column or keep-out under the cursor, and the hall."""

    def compose(self) -> ComposeResult:
        yield Static("", id="inspector-body")

    def show(self, inputs: Inputs, floor: HallFloor, where: tuple[float, float] | None, rack: int) -> None:
        parts: list[RenderableType] = []
        if where is not None:
            parts.append(point_section(floor, *where))
            parts.append(Text(""))
        parts.append(hall_section(inputs, floor.key))
        self.query_one("#inspector-body", Static).update(Group(*parts))
