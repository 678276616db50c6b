"""The layout optimisation chapter of an optimised site's report (``dclayout optimize --pdf``): what the
search found against the site as it was and against the lower bound, what moved, how the best fell with
the evaluations (a convergence chart), and the media and transceivers before and after. It reads the
``optimize.json`` object (layout.commands.optimize), not the search itself."""

from __future__ import annotations

from typing import Any

from reportlab.graphics.shapes import Drawing, Line, PolyLine, String
from reportlab.platypus import Flowable, Spacer

from layout import figures
from layout.export.pdf.document import h1, h2
from layout.export.pdf.flowables import Col, data_table, kv_table
from layout.export.pdf.formatting import fmt_int, para
from layout.export.pdf.theme import ACCENT, FRAME_W, INK, MUTED, RULE


def _musd(v: float) -> str:
    return f"${v / 1e6:,.2f} M"


def convergence_chart(
    history: list[dict[str, Any]], width: float = FRAME_W, height: float = 150.0
) -> Drawing:
    """The best objective (and the search's current one) after each batch, against the evaluations."""
    d = Drawing(width, height)
    left, bottom, right, top = 62.0, 22.0, 8.0, 8.0
    xs = [float(h["evaluations"]) for h in history]
    ys = [float(h["best"]) for h in history] + [float(h["current"]) for h in history]
    x0, x1 = 0.0, max(max(xs), 1.0)
    y0, y1 = min(ys), max(ys)
    if y1 <= y0:
        y1 = y0 + 1.0
    pad = 0.05 * (y1 - y0)
    y0, y1 = y0 - pad, y1 + pad

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * (width - left - right)

    def py(y: float) -> float:
        return bottom + (y - y0) / (y1 - y0) * (height - bottom - top)

    d.add(Line(left, bottom, width - right, bottom, strokeColor=RULE))
    d.add(Line(left, bottom, left, height - top, strokeColor=RULE))
    for k in range(5):
        y = y0 + (y1 - y0) * k / 4
        d.add(String(left - 4, py(y) - 2.5, _musd(y), fontSize=6.5, textAnchor="end", fillColor=MUTED))
    for k in range(5):
        x = x0 + (x1 - x0) * k / 4
        d.add(String(px(x), 8, f"{x:,.0f}", fontSize=6.5, textAnchor="middle", fillColor=MUTED))
    d.add(String((left + width) / 2, 0, "designs evaluated", fontSize=7, textAnchor="middle", fillColor=INK))
    cur = [c for h in history for c in (px(float(h["evaluations"])), py(float(h["current"])))]
    best = [c for h in history for c in (px(float(h["evaluations"])), py(float(h["best"])))]
    if len(history) > 1:
        d.add(PolyLine(cur, strokeColor=MUTED, strokeWidth=0.6, strokeDashArray=[2, 2]))
        d.add(PolyLine(best, strokeColor=ACCENT, strokeWidth=1.4))
    d.add(String(width - right, height - top - 6, "best (solid), current (dashed)", fontSize=6.5,
                 textAnchor="end", fillColor=MUTED))  # fmt: skip
    return d


def story(opt: dict[str, Any]) -> list[Flowable]:
    base, best = opt["baseline"], opt["best"]
    out: list[Flowable] = [*h1("Layout optimisation", new_page=True)]
    out.append(
        para(
            f"This site's layout was chosen by dclayout optimize ({opt['evaluations']:,} designs evaluated, "
            f"seed {opt['seed']}, objective {opt['objective']}). Every candidate ran the whole pipeline and had to "
            "keep the GPUs, route every link and add no design-rule violation. The lower bound puts every link at "
            "the shortest length its racks allow."
        )
    )
    out.append(
        kv_table(
            [
                ("Transceivers + cables, site as it was", _musd(base["optics_usd"])),
                ("Transceivers + cables, this layout", _musd(best["optics_usd"])),
                ("Saved", f"{_musd(base['optics_usd'] - best['optics_usd'])} ({opt['saving_pct']:.1f} %)"),
                ("Lower bound", _musd(opt["lower_bound_optics_usd"])),
                ("This layout above the lower bound", f"{opt['gap_to_lower_bound_pct']:.1f} %"),
                (
                    "Optics energy, before / after",
                    f"{_musd(base['optics_energy_usd'])} / {_musd(best['optics_energy_usd'])}",
                ),
                (
                    f"{figures.SPEC['cable_km'].label}, before / after",
                    f"{figures.text('cable_km', base['cable_km'])} / {figures.text('cable_km', best['cable_km'])}",
                ),
            ],
            width=FRAME_W * 0.8,
        )
    )
    out += h2("What moved")
    moved = opt.get("moved", {})
    rows = [
        [where, key, _option_text(val)] for where, keys in sorted(moved.items()) for key, val in keys.items()
    ]
    if rows:
        out.append(data_table([Col("Building / hall", 110), Col("Site key", 90), Col("Value", 120)], rows))
    else:
        out.append(para("Nothing: the site's own layout was the best found."))
    out += h2("Convergence")
    out.append(convergence_chart(opt["history"]))
    out += h2("Media and transceivers, before and after")
    media = sorted(set(base["media"]) | set(best["media"]))
    mrows = [[m, fmt_int(base["media"].get(m, 0)), fmt_int(best["media"].get(m, 0)),
              f"{best['media'].get(m, 0) - base['media'].get(m, 0):+,}"] for m in media]  # fmt: skip
    out.append(data_table([Col("Links by media class", 150), Col("Before", 80, True), Col("After", 80, True),
                           Col("Change", 80, True)], mrows))  # fmt: skip
    out.append(Spacer(1, 6))
    mods = sorted(set(base["transceivers"]) | set(best["transceivers"]))
    trows = [[m, fmt_int(base["transceivers"].get(m, 0)), fmt_int(best["transceivers"].get(m, 0)),
              f"{best['transceivers'].get(m, 0) - base['transceivers'].get(m, 0):+,}"] for m in mods]  # fmt: skip
    out.append(data_table([Col("Transceiver modules by medium", 150), Col("Before", 80, True),
                           Col("After", 80, True), Col("Change", 80, True)], trows))  # fmt: skip
    return out


SU_ORDER_SHOWN = 4  # SU ids a "What moved" row shows of an su_order (the file has them all)


def _option_text(val: Any) -> str:
    """A placement option's value in a table cell: a point as "x y", an SU order as its first ids and
    how many there are, anything else as it is."""
    if isinstance(val, list) and val and isinstance(val[0], str):
        more = f", ... ({len(val)} SUs)" if len(val) > SU_ORDER_SHOWN else ""
        return ", ".join(val[:SU_ORDER_SHOWN]) + more
    if isinstance(val, list):
        return " ".join(f"{v:g}" for v in val)
    return str(val)
