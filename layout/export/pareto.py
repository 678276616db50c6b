"""The Pareto chart of ``dclayout sweep`` as an SVG: cost (x, $M) against optics modules (y), each point
a circle whose area grows with its network power; the Pareto front (layout.engine.sweep.pareto) in
dark blue with labels, the rest in grey. Deterministic text: the same table gives the same bytes."""

from __future__ import annotations

import math
from xml.sax.saxutils import escape

import pandas as pd

W, H = 760, 480
LEFT, RIGHT, TOP, BOTTOM = 80, 30, 40, 60


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        hi = lo + 1.0
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (step * m) <= n:
            step *= m
            break
    start = math.floor(lo / step) * step
    return [round(start + i * step, 10) for i in range(int((hi - start) / step) + 2)]


def pareto_svg(df: pd.DataFrame, grid_keys: list[str], title: str) -> str:
    """The chart of the rows of ``df`` that have figures (see the module docstring)."""
    ok = df[df["error"] == ""]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        'font-family="Helvetica, Arial, sans-serif" font-size="11">',
        f'<rect width="{W}" height="{H}" fill="white"/>',
        f'<text x="{LEFT}" y="22" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    if ok.empty:
        out.append(f'<text x="{LEFT}" y="{H // 2}">no point of the sweep could be designed</text></svg>')
        return "\n".join(out) + "\n"
    cost = ok["cost_total_usd"].astype(float).to_numpy() / 1e6
    optics = ok["optics_total"].astype(float).to_numpy()
    power = ok["network_power_mw"].astype(float).to_numpy()
    xt, yt = _ticks(float(cost.min()), float(cost.max())), _ticks(float(optics.min()), float(optics.max()))
    x0, x1, y0, y1 = xt[0], xt[-1], yt[0], yt[-1]

    def px(v: float) -> float:
        return LEFT + (v - x0) / (x1 - x0) * (W - LEFT - RIGHT)

    def py(v: float) -> float:
        return H - BOTTOM - (v - y0) / (y1 - y0) * (H - TOP - BOTTOM)

    out.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{W - LEFT - RIGHT}" height="{H - TOP - BOTTOM}" fill="none" stroke="#888"/>'
    )
    for t in xt:
        out.append(f'<text x="{px(t):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{t:,.6g}</text>')
    for t in yt:
        out.append(f'<text x="{LEFT - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{t:,.0f}</text>')
    out.append(
        f'<text x="{(LEFT + W - RIGHT) / 2:.0f}" y="{H - 20}" text-anchor="middle">cost, $M (BOM total)</text>'
    )
    out.append(
        f'<text x="18" y="{(TOP + H - BOTTOM) / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 18 {(TOP + H - BOTTOM) / 2:.0f})">optics modules</text>'
    )
    pmax = float(power.max()) if float(power.max()) > 0 else 1.0
    front = ok["pareto"].to_numpy(bool)
    order = sorted(range(len(ok)), key=lambda i: (bool(front[i]), i))  # the front drawn last, on top
    for i in order:
        r = 4.0 + 10.0 * math.sqrt(max(power[i], 0.0) / pmax)
        colour = "#1f4e99" if front[i] else "#bbbbbb"
        label = " ".join([str(ok["site"].iloc[i]), *(str(ok[k].iloc[i]) for k in grid_keys)])
        out.append(
            f'<circle cx="{px(cost[i]):.1f}" cy="{py(optics[i]):.1f}" r="{r:.1f}" fill="{colour}" '
            f'fill-opacity="0.7" stroke="#333" stroke-width="0.5"><title>{escape(label)}: '
            f"${cost[i]:,.1f} M, {optics[i]:,.0f} modules, {power[i]:,.3f} MW</title></circle>"
        )
        if front[i]:
            out.append(
                f'<text x="{px(cost[i]) + r + 2:.1f}" y="{py(optics[i]) + 4:.1f}">{escape(label)}</text>'
            )
    out.append(
        f'<text x="{W - RIGHT}" y="{TOP - 8}" text-anchor="end">circle area: network power (largest '
        f"{pmax:,.3f} MW); blue: the Pareto front</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"
