"""The cabling sections of the network chapter: media mix, routed lengths, the longest link bundles and
what forces their length, and the fullest tray segments.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from reportlab.platypus import (
    Flowable,
)

from layout import figures
from layout.export.pdf.charts import length_histogram, media_mix_chart
from layout.export.pdf.document import h2
from layout.export.pdf.flowables import Cell, Col, data_table
from layout.export.pdf.formatting import fmt_int, fmt_num, fmt_pct, para
from layout.export.pdf.theme import FRAME_W


def _why_long(ra: Any, rb: Any, length: float, status: str) -> str:
    """What makes a link as long as it is, from where its two racks stand."""
    if status != "ok":
        return {
            "reach": "longer than any medium's reach",
            "no_path": "no tray path between its racks",
            "no_tray": "a rack with no tray above it",
            "unplaced": "an end without a rack",
        }.get(status, status)
    if ra.building != rb.building:
        return f"joins buildings {ra.building} and {rb.building} through the campus duct"
    if ra.hall != rb.hall:
        return f"joins halls {ra.hall} and {rb.hall}"
    direct = math.hypot(ra.x_m - rb.x_m, ra.y_m - rb.y_m)
    return (
        f"racks {direct:,.0f} m apart in a straight line; {max(length - direct, 0):,.0f} m more along the "
        "trays (aisles, cross-aisles) and the drops into the racks"
    )


def longest_bundles(
    kind: np.ndarray,
    row_a: np.ndarray,
    row_b: np.ndarray,
    media: np.ndarray,
    length_m: np.ndarray,
    routed: np.ndarray,
    top: int = 15,
) -> list[tuple[int, int, float, int, int]]:
    """The ``top`` longest bundles of routed links: links of one kind between the same two rows on the
    same medium. Per bundle, longest first (ties: the lower link number): its longest link, how many
    links it holds, that link's length and the two rows (codes)."""
    sel = np.flatnonzero(routed)
    order = sel[np.lexsort((sel, -length_m[sel]))]  # longest first, then by link number
    key = np.zeros(len(order), np.int64)
    for part in (kind, row_a, row_b, media):  # one integer per bundle (codes from -1 up)
        v = part[order].astype(np.int64) + 1
        key = key * (int(v.max(initial=0)) + 1) + v
    _, first, n = np.unique(key, return_index=True, return_counts=True)
    ranked = np.argsort(first, kind="stable")[:top]  # bundles in the order their longest link comes
    out = []
    for g in ranked.tolist():
        i = int(order[first[g]])
        out.append((i, int(n[g]), float(length_m[i]), int(row_a[i]), int(row_b[i])))
    return out


def story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    cab = design.cabling
    links = cab.links
    media = summary["media"]
    total = sum(media.values())
    copper, backend = cab.backend_copper()
    out: list[Flowable] = [*h2("Media mix")]
    out.append(
        para(
            f"Each link takes the cheapest medium whose reach covers its routed length. {copper:,} of the GPU "
            f"fabric's {backend:,} links ({fmt_pct(summary['copper_share_pct'] / 100.0)}) are copper (DAC or "
            f"AEC), of {total:,} links in all networks; "
            f"{summary['cable_length_m']['total'] / 1000:,.1f} km of cable at stock lengths, the longest "
            f"{summary['cable_length_m']['max']:,.0f} m."
        )
    )
    out.append(media_mix_chart({k: int(v) for k, v in media.items() if v}))
    routed = links["length_m"].notna().to_numpy()
    out += [
        *h2("Cable lengths"),
        length_histogram(links["length_m"].to_numpy(float)[routed], links["media_class"].array[routed]),
    ]
    by = (
        links.loc[routed, ["media", "media_class", "length_m", "stock_length_m"]]
        .groupby(["media", "media_class"], observed=True)
        .agg(
            n=("length_m", "size"),
            avg_m=("length_m", "mean"),
            max_m=("length_m", "max"),
            stock_m=("stock_length_m", "sum"),
        )
    )
    cat = design.inputs.catalog

    def medium(m: object) -> tuple[str, str]:
        """Name and reach of a medium; links no medium of the catalog reaches have none."""
        spec = cat.media.get(str(m))
        return (spec.name, f"{spec.reach_m:g}") if spec else ("no medium reaches (see the violations)", "-")

    rows: list[list[Cell]] = [
        [
            medium(m)[0],
            fmt_int(r.n),
            fmt_num(r.avg_m, 1),
            fmt_num(r.max_m, 1),
            medium(m)[1],
            fmt_num(r.stock_m / 1000, 2),
        ]
        for (m, _), r in by.iterrows()
    ]
    cols = [
        Col("Medium", 190),
        Col("Links", 60, True),
        Col("Mean m", 55, True),
        Col("Longest m", 60, True),
        Col("Reach m", 60, True),
        Col("Cable km", 60, True),
    ]
    out.append(data_table(cols, rows))

    racks = design.placement.racks
    row_code, row_names = pd.factorize(racks["row"])
    row_code = np.append(row_code, -1)  # a link end with no rack (-1) has no row, even with no racks at all
    bundles = longest_bundles(
        links["kind"].cat.codes.to_numpy(),
        row_code[links["rack_a"].to_numpy()],
        row_code[links["rack_b"].to_numpy()],
        links["media"].cat.codes.to_numpy(),
        links["length_m"].to_numpy(float),
        routed,
    )
    rows = []
    for i, n, length, row_a, row_b in bundles:
        link: Any = links.iloc[i]
        ra, rb = racks.iloc[int(link.rack_a)], racks.iloc[int(link.rack_b)]
        rows.append(
            [
                str(link.kind),
                f"{row_names[row_a]} - {row_names[row_b]}",
                fmt_int(n),
                fmt_num(length, 1),
                str(link.media),
                _why_long(ra, rb, length, str(link.status)),
            ]
        )
    cols = [
        Col("Link", 55),
        Col("Between rows", 110),
        Col("Links", 40, True),
        Col("Longest m", 52, True),
        Col("Medium", 45),
        Col("What forces the length", FRAME_W - 302),
    ]
    out += [
        *h2("The longest links"),
        para("Links grouped by kind, the two rows they join and their medium; the longest bundles first."),
        data_table(cols, rows),
    ]
    bad = (links["status"] != "ok").to_numpy()
    if bad.any():
        counts = links.loc[bad, "status"].astype(str).value_counts().sort_index()
        out.append(
            para(
                "Links without a usable route or medium: "
                + ", ".join(f"{n:,} {k}" for k, n in counts.items())
                + " (see Violations)."
            )
        )

    fill = cab.edge_fill
    edges = cab.trays.edges
    has = fill["cables"].to_numpy() > 0
    # the one tray fill of every output (layout/figures.py: tray_fill_max_pct is the first row's)
    use = fill["fill"].to_numpy(float)
    limit = fill["fill_limit"].to_numpy(float)
    fullest = [int(i) for i in np.lexsort((np.arange(len(fill)), -use)) if has[i]][:15]
    nodes = cab.trays.nodes
    nx, ny = nodes["x_m"].to_numpy(float), nodes["y_m"].to_numpy(float)
    eu, ev = edges["u"].to_numpy(), edges["v"].to_numpy()

    def at(i: int) -> str:
        mid = f"({(nx[eu[i]] + nx[ev[i]]) / 2:,.1f}, {(ny[eu[i]] + ny[ev[i]]) / 2:,.1f})"
        return f"{edges['where'].iat[i]} at {mid}"

    rows = [
        [
            at(i),
            str(edges["kind"].iat[i]),
            fmt_int(edges["levels"].iat[i]),
            fmt_int(fill["cables"].iat[i]),
            fmt_int(fill["peak_area_mm2"].iat[i]),
            fmt_pct(float(use[i]), 1),
            fmt_pct(float(limit[i]), 0),
        ]
        for i in fullest
    ]
    cols = [
        Col("Tray segment", 130),
        Col("Kind", 50),
        Col("Levels", 40, True),
        Col("Cables", 55, True),
        Col("Cable mm2", 65, True),
        Col("Fill", 70, True),
        Col("Fill limit", FRAME_W - 410, True),
    ]
    out += [
        *h2("The fullest tray segments"),
        para(
            f"{int(fill['over'].sum()):,} of {int(has.sum()):,} tray segments in use are over their fill limit. "
            f"Fill: {figures.SPEC['tray_fill_max_pct'].definition} "
            f"The {figures.SPEC['tray_fill_max_pct'].label}: {design.figures['tray_fill_max_pct'].text}. "
            "Places are segment midpoints in site metres."
        ),
        data_table(cols, rows),
    ]
    return out
