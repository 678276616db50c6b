"""The inspector: what is under the map cursor (a rack with its devices, links and media; a user row, a
column or a keep-out), and the hall it is in."""

from __future__ import annotations

from typing import Any

import numpy as np
from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from shapely.geometry import Point
from textual.app import ComposeResult
from textual.containers import VerticalScroll

from layout.load import Inputs
from layout.tui.floor import HallFloor
from layout.tui.panels import use_colour
from layout.tui.results import Result
from layout.tui.trace import Trace
from layout.tui.widgets.prerendered import Prerendered

TRACE_GROUPS_LISTED = 12  # far racks x media listed under a trace (the longest first)


class KeyValues:
    """Keys (dim) in a column as wide as the longest, a space, then each value wrapped to the rest of the
    width: what a two-column rich Table.grid shows, without the Table's measuring of every cell on every
    render (the inspector is rendered again on each cursor move)."""

    def __init__(self, rows: list[tuple[str, RenderableType]]) -> None:
        self.rows = rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        key_w = max((cell_len(k) for k, _ in self.rows), default=0)
        value_w = max(options.max_width - key_w - 1, 1)
        value_options = options.update_width(value_w)
        blank = " " * (key_w + 1)
        for key, value in self.rows:
            lines = console.render_lines(value, value_options, pad=True)
            for i, line in enumerate(lines):
                if i == 0:
                    yield Segment(key.ljust(key_w), DIM)
                    yield Segment(" ")
                else:
                    yield Segment(blank)
                yield from line
                yield Segment.line()


DIM = Style(dim=True)


def kv_table(rows: list[tuple[str, RenderableType]]) -> KeyValues:
    return KeyValues(rows)


def bar(value: float, limit: float, width: int = 12) -> Text:
    """A bar of value against limit, coloured by the palette's bands (the last: over the limit)."""
    frac = value / limit if limit > 0 else 0.0
    filled = min(width, round(min(frac, 1.0) * width))
    return Text("█" * filled, style=use_colour(frac)).append("░" * (width - filled), style="grey35")


def against(value: float, limit: float, unit: str, digits: int = 1, bar_width: int = 6) -> Text:
    """``41.2/45.0 kW`` followed by a short bar."""
    frac = value / limit if limit > 0 else 0.0
    t = Text(f"{value:,.{digits}f}/{limit:,.{digits}f} {unit} ", style=use_colour(frac))
    return t.append_text(bar(value, limit, bar_width)) if bar_width else t


def hall_section(inputs: Inputs, key: str, result: Result | None) -> RenderableType:
    b_id, h_id = key.split("/")
    b = next(b for b in inputs.site.building if b.id == b_id)
    h = next(h for h in b.hall if h.id == h_id)
    rows: list[tuple[str, RenderableType]] = [
        ("cooling", h.cooling),
        ("max rack", f"{h.max_rack_kw:g} kW"),
        ("floor", f"{h.floor_load_kg_m2:g} kg/m²"),
        ("rows", f"along {h.row_axis}, ≤ {h.max_row_racks} racks"),
    ]
    if result is not None:
        d = result.design
        hall_row = d.power.halls.loc[d.power.halls["hall"] == key]
        if len(hall_row):
            it_mw = float(hall_row["it_kw"].to_numpy(float)[0]) / 1000.0
            rows.append(("racks", f"{int(hall_row['racks'].to_numpy()[0]):,}"))
            rows.append(("IT", against(it_mw, h.it_mw, "MW", 2) if h.it_mw else Text(f"{it_mw:,.2f} MW")))
        gpu = d.placement.gpu_rack.get(key)
        if gpu is not None:
            rows.append(("GPU rack", f"{gpu.template}, {gpu.servers} servers, ~{gpu.est_kw:.1f} kW"))
    elif h.it_mw:
        rows.append(("IT limit", f"{h.it_mw:g} MW"))
    return Group(Text(f"Hall {key}", style="bold"), kv_table(rows))


def elevation(result: Result, rack_no: int, dev_idx: np.ndarray, highlight: int = -1) -> RenderableType:
    """The elevation of rack ``rack_no`` holding devices ``dev_idx``: each device from the top RU down,
    ``U41-48 srv-00017 dgx-h100``, with the empty stretches between (``U20-33 ·``); ``highlight``: a
    device to show in reverse (one just found)."""
    d = result.design
    tpl = d.inputs.templates[str(d.placement.racks["template"].iat[rack_no])]
    _, model_all, id_all = result.device_arrays
    catalog = d.inputs.catalog
    ru = d.placement.device_ru[dev_idx]
    lines = [Text(f"Elevation ({tpl.height_ru}U)", style="bold")]
    top_free = tpl.height_ru  # the highest RU not yet listed

    def empty(hi: int, lo: int) -> None:
        if hi >= lo:
            lines.append(Text(f"U{lo:02d}" + (f"-{hi:02d}" if hi > lo else "   ") + " ·", style="grey50"))

    for i in np.argsort(-ru, kind="stable").tolist():
        dev, lo = int(dev_idx[i]), int(ru[i])
        model = str(model_all[dev])
        spec = catalog.server.get(model) or catalog.switch.get(model)
        hi = lo + (spec.height_ru if spec is not None else 1) - 1
        empty(top_free, hi + 1)
        label = f"U{lo:02d}" + (f"-{hi:02d}" if hi > lo else "   ")
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(label + " ", style=DIM).append(str(id_all[dev])).append(f" {model}", style=DIM)
        if dev == highlight:
            line.stylize("reverse")
        lines.append(line)
        top_free = min(top_free, lo - 1)
    empty(top_free, 1)
    return Group(*lines)


def trace_section(trace: Trace) -> RenderableType:
    """The traced rack's links by far rack, kind and medium, the longest first."""
    hall = trace.rack_id.rsplit("/", 2)[0] + "/"
    short = trace.rack_id.removeprefix(hall)  # R01/K05 inside the traced rack's hall
    row = trace.rack_id.rsplit("/", 1)[0] + "/"
    lines = [
        Text(f"Trace {short}", style="bold"),
        Text(f"{len(trace):,} links to {len(trace.far_racks)} racks, the longest first:"),
    ]
    groups = trace.groups
    for r in groups.head(TRACE_GROUPS_LISTED).to_dict("records"):
        lo, hi = float(r["min_m"]), float(r["max_m"])
        metres = f"{lo:.1f}-{hi:.1f} m" if hi - lo >= 0.05 else f"{hi:.1f} m"
        line = Text(no_wrap=True, overflow="ellipsis")
        line.append(f"{int(r['links']):>3} ").append(f"{r['media_class']} ", style="bold")
        line.append(f"{metres} → " if np.isfinite(hi) else "no route → ")
        far = str(r["far_rack_id"])  # K05 in the traced rack's row, R06/K02 in its hall
        far = far.removeprefix(row) if far.startswith(row) else far.removeprefix(hall)
        line.append(far).append(f" {r['kind']}", style=DIM)
        lines.append(line)
    if len(groups) > TRACE_GROUPS_LISTED:
        lines.append(Text(f"… {len(groups) - TRACE_GROUPS_LISTED} more (cabling tab: every link)", style=DIM))
    return Group(*lines)


def feed_text(design: Any, rack_no: int) -> str | None:
    """A rack's A and B feeds: the busway of each side, the UPS block behind it, and its tap-off
    (``A R03/A1 < UPS-A1, B R03/B1 < UPS-B1; tap-63a 45.3 kW``); None without a power chain."""
    f = design.chain.feeds
    if rack_no >= len(f) or not f["feed_a"].iat[rack_no]:
        return None
    bw = design.chain.busways
    ups = dict(zip(bw["busway_id"].tolist(), bw["ups_id"].tolist(), strict=True))
    hall = str(design.placement.racks["hall"].iat[rack_no]) + "/"
    parts = []
    for side in ("a", "b"):
        feed = str(f[f"feed_{side}"].iat[rack_no])
        parts.append(f"{side.upper()} {feed.removeprefix(hall)} < {ups.get(feed, '?').removeprefix(hall)}")
    return ", ".join(parts) + f"; {f['tap_off'].iat[rack_no]} {float(f['tap_kw'].iat[rack_no]):g} kW"


def rack_section(
    result: Result, rack_no: int, hall_floor_kg_m2: float, highlight: int = -1
) -> RenderableType:
    """A rack: template, kW against the limit, floor load, its devices, its links by kind and medium, its
    elevation."""
    d = result.design
    r = d.placement.racks.iloc[rack_no]
    tpl = d.inputs.templates[str(r["template"])]
    kw, limit = float(d.power.rack_kw[rack_no]), float(d.power.rack_limit_kw[rack_no])
    rows: list[tuple[str, RenderableType]] = [
        ("template", f"{tpl.id} — {tpl.name}"),
        ("kind", f"{r['kind']}" + (", user row" if bool(r["user_row"]) else "")),
        ("power", against(kw, limit, "kW")),
        ("floor", against(float(d.power.rack_floor_kg_m2[rack_no]), hall_floor_kg_m2, "kg/m²", 0, 0)),
        ("position", f"({float(r['x_m']):.1f}, {float(r['y_m']):.1f}) m, {float(r['rotation_deg']):g}°"),
    ]
    feeds = feed_text(d, rack_no)
    if feeds is not None:
        rows.append(("feeds", feeds))
    dev_idx = np.flatnonzero(d.placement.device_rack == rack_no)
    if len(dev_idx):
        role_all, model_all, _ = result.device_arrays
        role, model = role_all[dev_idx], model_all[dev_idx]
        pairs = sorted(set(zip(role.tolist(), model.tolist(), strict=True)))
        count = {p: 0 for p in pairs}
        for p in zip(role.tolist(), model.tolist(), strict=True):
            count[p] += 1
        rows.append(("devices", ", ".join(f"{count[p]} {p[0]} {p[1]}" for p in pairs)))
    idx = result.rack_links(rack_no)
    n_links = len(idx)
    if n_links:
        kind_codes, kind_names, media_codes, media_names, bad_links = result.link_codes
        by_kind = np.bincount(kind_codes[idx], minlength=len(kind_names)).tolist()
        rows.append(
            (
                "links",
                f"{n_links:,}: "
                + ", ".join(f"{n:,} {k}" for k, n in zip(kind_names, by_kind, strict=True) if n),
            )
        )
        by_media = np.bincount(media_codes[idx], minlength=len(media_names)).tolist()
        media_counts = sorted((k, n) for k, n in zip(media_names, by_media, strict=True) if n)
        rows.append(("media", ", ".join(f"{n:,} {k}" for k, n in media_counts)))
        lengths = result.link_length_m[idx]
        longest = float(np.nanmax(lengths)) if np.isfinite(lengths).any() else 0.0
        rows.append(("longest", f"{longest:.1f} m"))
        bad = int(bad_links[idx].sum())
        if bad:
            rows.append(("problems", Text(f"{bad:,} links without a route or medium", style="red")))
    return Group(
        Text(f"Rack {r['rack_id']}", style="bold"),
        kv_table(rows),
        Text(""),
        elevation(result, rack_no, dev_idx, highlight),
    )


def point_section(floor: HallFloor, x: float, y: float, reach_m: float = 0.0) -> RenderableType:
    """What is at the cursor's point when it is on no rack; ``reach_m``: how far from the point a
    fibre cabinet may be and still be the one its map cell shows (half a cell's height)."""
    rows: list[tuple[str, RenderableType]] = [("cursor", f"({x:.1f}, {y:.1f}) m")]
    box = floor.user_row_at(x, y)
    cabinet = floor.cabinet_at(x, y, reach_m)
    if box is not None:
        rows.append(("user row", f"{box.index + 1}: {box.what()}, along {box.axis}"))
        rows.append(("origin", f"({box.x0:g}, {box.y0:g}) m"))
    elif cabinet is not None:
        rows.append(("here", f"fibre cabinet {cabinet}"))
        rows.append(("holds", "its panel location's patch panels beyond the rack's free U"))
    elif floor.column_at(x, y):
        rows.append(("here", "building column"))
    elif (reason := floor.keepout_at(x, y)) is not None:
        rows.append(("here", f"keep-out: {reason}"))
    elif not floor.polygon.contains(Point(x, y)):
        rows.append(("here", "outside the hall"))
    return kv_table(rows)


def row_section(result: Result, rack_no: int) -> RenderableType:
    d = result.design
    row_id = str(d.placement.racks["row"].iat[rack_no])
    pr = d.power.rows.loc[d.power.rows["row"] == row_id]
    if not len(pr):
        return Text("")
    racks, kw = int(pr["racks"].to_numpy()[0]), float(pr["it_kw"].to_numpy(float)[0])
    return kv_table([("row", f"{row_id}: {racks} racks, {kw:,.0f} kW")])


class Inspector(VerticalScroll):
    """Shows the selection under the map cursor and the hall it is in."""

    def compose(self) -> ComposeResult:
        yield Prerendered("", id="inspector-body", keep_height=True)

    def show(
        self,
        inputs: Inputs,
        floor: HallFloor,
        where: tuple[float, float] | None,
        rack_no: int,
        result: Result | None,
        stale: str = "",
        trace: Trace | None = None,
        device: int = -1,
        reach_m: float = 0.0,
    ) -> None:
        """``stale``: why the figures are not of the site as it is now (said first; "": they are);
        ``trace``: the traced rack's (listed first); ``device``: one to highlight in the elevation;
        ``reach_m``: half the height of a map cell (what the map marks as a cabinet's, see
        :func:`point_section`)."""
        parts: list[RenderableType] = []
        if stale:
            parts.append(Text(stale, style="italic yellow"))
        if trace is not None:
            parts += [trace_section(trace), Text("")]
        if result is not None and rack_no >= 0:
            hall_rating = next(
                h.floor_load_kg_m2 for b, h in inputs.site.halls() if f"{b.id}/{h.id}" == floor.key
            )
            parts += [
                rack_section(result, rack_no, hall_rating, device),
                row_section(result, rack_no),
                Text(""),
            ]
        if where is not None:
            parts += [point_section(floor, *where, reach_m), Text("")]
        parts.append(hall_section(inputs, floor.key, result))
        self.query_one("#inspector-body", Prerendered).update(Group(*parts))
