"""The tabs beside the map, as Rich renderables built from a design result: the site's budgets as bars,
the cabling (media mix, transceivers, longest links, fullest trays) and the BOM totals. Rich only, no
Textual: the headless session builds them in its worker thread, the widgets show them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from rich.console import Group, RenderableType
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from layout.scene import palette
from layout.tui.results import Result
from layout.tui.trace import Trace, end_ports

LONGEST_LINKS = 15
FULLEST_TRAYS = 8


def use_colour(frac: float) -> str:
    """The colour of a use of a limit: the drawings' kW bands (layout.scene.palette), the last over it."""
    return palette.band_colour(frac)


def _budget_table(title: str) -> Table:
    t = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        box=None,
        padding=(0, 1),
        expand=True,
        show_header=False,
    )
    t.add_column(no_wrap=True, max_width=24, overflow="ellipsis")  # where
    t.add_column(justify="right", no_wrap=True)  # figure/limit
    t.add_column(justify="right", no_wrap=True)  # use
    t.add_column("", ratio=1, min_width=4)
    return t


def _budget_row(t: Table, where: str, value: float, limit: float | None, unit: str, digits: int = 2) -> None:
    if limit:
        frac = value / limit
        colour = use_colour(frac)
        t.add_row(
            where,
            Text(f"{value:,.{digits}f}/{limit:,.{digits}f} {unit}", style=colour),
            Text(f"{frac:.0%}", style=colour),
            ProgressBar(total=1.0, completed=min(frac, 1.0), complete_style=colour, finished_style=colour),
        )
    else:
        t.add_row(where, f"{value:,.{digits}f} {unit}", Text("-", style="dim"), "")


def _limit(v: Any) -> float | None:
    """A limit from a table cell: None or NaN mean no limit."""
    return None if v is None or pd.isna(v) else float(v)


def budgets(result: Result) -> RenderableType:
    d = result.design
    p = d.power
    site = d.inputs.site
    top = _budget_table("Site")
    _budget_row(top, "facility / utility feed", p.facility_mw, p.utility_mw, "MW")
    _budget_row(top, "IT", p.it_mw, None, "MW")
    limits = np.asarray(p.rack_limit_kw, float)
    worst = int(np.argmax(p.rack_kw / np.where(limits > 0, limits, 1.0))) if len(p.rack_kw) else -1
    if worst >= 0:
        rack_id = str(d.placement.racks["rack_id"].iat[worst])
        _budget_row(top, f"max rack {rack_id}", float(p.rack_kw[worst]), float(limits[worst]), "kW", 1)
    bld = _budget_table("Buildings (IT)")
    for r in p.buildings.to_dict("records"):
        _budget_row(
            bld, f"{r['building']} ({r['racks']:,} racks)", r["it_kw"] / 1000.0, _limit(r["limit_mw"]), "MW"
        )
    halls = _budget_table("Halls (IT)")
    for r in p.halls.to_dict("records"):
        _budget_row(
            halls, f"{r['hall']} ({r['racks']:,} racks)", r["it_kw"] / 1000.0, _limit(r["limit_mw"]), "MW"
        )
    heat = _budget_table("Halls (heat / cooling)")
    for r in p.halls.to_dict("records"):
        _budget_row(heat, str(r["hall"]), r["it_kw"] / 1000.0, _limit(r.get("cooling_mw")), "MW")
    chain = _budget_table("Power chain (IT / UPS with redundancy)")
    for r in d.chain.halls.to_dict("records"):
        _budget_row(
            chain,
            f"{r['hall']} {r['redundancy']} {r['ups_blocks']}x{r['ups_model']}",
            float(r["it_mw"]),
            float(r["chain_mw"]),
            "MW",
        )
    causes = {"stranded_cooling_mw": "cooling", "stranded_space_mw": "space", "unused_mw": "unused"}
    stranded = [
        f"{r['hall']} {float(r['stranded_mw']):,.2f} ("
        + ", ".join(f"{word} {float(r[c]):,.2f}" for c, word in causes.items() if float(r[c]) > 0.005)
        + ")"
        for r in d.chain.halls.to_dict("records")
        if float(r["stranded_mw"]) > 0.005
    ]
    f = d.figures  # as every output labels and writes them (layout/figures.py)
    energy = Text.assemble(
        ("Energy ", "bold"),
        f"{f['annual_twh'].line()} at PUE {site.site.pue:g}; ",
        f"{f['annual_cost_usd'].line()} at ${site.site.electricity_usd_per_kwh:g}/kWh",
    )
    cost = Text.assemble(
        ("Cost ", "bold"),
        f"{f['cost_total_usd'].line()}; {f['cost_without_power_chain_usd'].line()}; {f['cost_network_usd'].line()}",
    )
    parts: list[RenderableType] = [top, Text(""), bld, Text(""), halls, Text(""), heat, Text("")]
    if len(d.chain.halls):
        parts += [chain, Text.assemble(("Stranded MW ", "bold"), ", ".join(stranded) or "none"), Text("")]
    return Group(*parts, energy, cost)


def cabling(result: Result) -> RenderableType:
    d = result.design
    links = d.cabling.links
    s = result.summary
    mix = Table(title="Media mix", title_justify="left", title_style="bold", box=None, padding=(0, 1))
    for col, just in (
        ("medium", "left"),
        ("links", "right"),
        ("share", "right"),
        ("cable km", "right"),
        ("longest m", "right"),
    ):
        mix.add_column(col, justify=just, no_wrap=True)  # type: ignore[arg-type]
    total = max(len(links), 1)
    by_class = links.groupby("media_class", sort=False, observed=True)
    km = by_class["stock_length_m"].sum() / 1000.0
    longest = by_class["length_m"].max()
    for cls, n in s["media"].items():
        if n:
            mix.add_row(
                cls,
                f"{n:,}",
                f"{n / total:.1%}",
                f"{float(km.get(cls, 0.0)):,.1f}",
                f"{float(longest.get(cls, 0.0)):,.1f}",
            )
    unrouted = int((links["status"] != "ok").sum())
    lines = [
        Text(
            f"{len(links):,} links, {s['cable_length_m']['total'] / 1000:,.1f} km of cable, "
            f"{s['node_optics']:,} node-side optics, {sum(s['tray_m'].values()):,.0f} m of tray"
        ),
    ]
    if unrouted:
        lines.append(Text(f"{unrouted:,} links without a route or medium (see Violations)", style="red"))
    tx = Table(title="Transceivers", title_justify="left", title_style="bold", box=None, padding=(0, 1))
    tx.add_column("medium")
    tx.add_column("modules", justify="right")
    for media, n in s["transceivers"].items():
        tx.add_row(media, f"{n:,}")
    return Group(mix, *lines, Text(""), tx, Text(""), longest_links(result), Text(""), fullest_trays(result))


def top_n(values: np.ndarray, n: int) -> np.ndarray:
    """Indices of the n largest values, largest first, ties by index (a stable sort of only the
    candidates, so 300,000 links cost one partition)."""
    if len(values) <= n:
        return np.argsort(-values, kind="stable")
    threshold = np.partition(values, len(values) - n)[len(values) - n]
    candidates = np.flatnonzero(values >= threshold)
    return candidates[np.argsort(-values[candidates], kind="stable")][:n]


def longest_links(result: Result) -> Table:
    d = result.design
    links = d.cabling.links
    racks = d.placement.racks["rack_id"].to_numpy()
    dev = d.fabric.devices["device_id"].to_numpy()
    order = top_n(np.nan_to_num(result.link_length_m, nan=-1.0), LONGEST_LINKS)
    top = links.iloc[order]
    end_a, end_b = top["a"].to_numpy(), top["b"].to_numpy()
    port_a, port_b = end_ports(result, order)
    kind, media = top["kind"].astype(str).to_numpy(), top["media"].astype(str).to_numpy()
    t = Table(title="Longest links", title_justify="left", title_style="bold", box=None, padding=(0, 1))
    t.add_column("m", justify="right", no_wrap=True)
    t.add_column("medium", no_wrap=True)
    t.add_column("kind", no_wrap=True)
    t.add_column("from", overflow="fold", min_width=13)
    t.add_column("to", overflow="fold", min_width=13)
    for j, i in enumerate(order):
        ra, rb = int(result.link_rack_a[i]), int(result.link_rack_b[i])
        a = f"{racks[ra] if ra >= 0 else '-'} {dev[end_a[j]]} {port_a[j]}"
        b = f"{racks[rb] if rb >= 0 else '-'} {dev[end_b[j]]} {port_b[j]}"
        t.add_row(f"{result.link_length_m[i]:,.1f}", media[j] or "none", kind[j], a, b)
    return t


def fullest_trays(result: Result) -> Table:
    fill = result.design.cabling.edge_fill
    t = Table(
        title="Fullest tray segments", title_justify="left", title_style="bold", box=None, padding=(0, 1)
    )
    for col in ("where", "kind", "cables", "fill"):
        t.add_column(col, justify="right" if col in ("cables", "fill") else "left", no_wrap=True)
    if not len(fill):
        return t
    limit = result.design.cabling.trays.edges["fill_limit"].to_numpy(float)
    share = fill["fill"].to_numpy(float)
    where, kind, cables = (fill[c].astype(str).to_numpy() for c in ("where", "kind", "cables"))
    for i in np.argsort(-share, kind="stable")[:FULLEST_TRAYS]:
        f = float(share[i])
        t.add_row(
            where[i],
            kind[i],
            f"{int(cables[i]):,}",
            Text(f"{f:.0%} of {limit[i]:.0%}", style=use_colour(f / limit[i] if limit[i] else 0.0)),
        )
    return t


TRACE_LINKS_LISTED = 200


def trace_links(trace: Trace) -> RenderableType:
    """Every link of a trace (the longest first, up to TRACE_LINKS_LISTED): this end's device and port,
    the far rack, device and port, medium and length."""
    t = Table(
        title=f"Links of the traced rack {trace.rack_id} (r on the map: another rack, or none)",
        title_justify="left",
        title_style="bold",
        box=None,
        padding=(0, 1),
    )
    for col, just in (("m", "right"), ("medium", "left"), ("kind", "left"), ("here", "left"), ("to", "left")):
        t.add_column(col, justify=just, no_wrap=col != "to", overflow="fold")  # type: ignore[arg-type]
    order = np.argsort(-np.nan_to_num(trace.length_m, nan=-1.0), kind="stable")
    for i in order[:TRACE_LINKS_LISTED].tolist():
        length = trace.length_m[i]
        t.add_row(
            f"{length:,.1f}" if np.isfinite(length) else "-",
            str(trace.media[i]) or "none",
            str(trace.kind[i]),
            f"{trace.near_device[i]} {trace.near_port[i]}",
            f"{trace.far_rack_id[i]} {trace.far_device[i]} {trace.far_port[i]}",
        )
    if len(trace) > TRACE_LINKS_LISTED:
        return Group(t, Text(f"… {len(trace) - TRACE_LINKS_LISTED:,} more: every cable is in STEM-ports.csv"))
    return t
