"""Small charts drawn with reportlab.graphics: budget bars (use against limit), the media mix and the
histogram of routed link lengths by media class.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors
from reportlab.pdfbase.pdfmetrics import stringWidth

from layout.export.pdf.formatting import safe_plain
from layout.export.pdf.theme import FONT, FRAME_W, INK, MUTED, RULE, ZEBRA
from layout.scene import palette


def _label(
    x: float, y: float, text: str, size: float, colour: colors.Color = INK, anchor: str = "start"
) -> String:
    """A chart label in the report font."""
    return String(x, y, text, fontName=FONT, fontSize=size, fillColor=colour, textAnchor=anchor)


def _bar(x: float, y: float, w: float, h: float, fill: colors.Color) -> Rect:
    """A filled chart bar with no outline."""
    return Rect(x, y, w, h, fillColor=fill, strokeColor=None)


def use_colour(ratio: float) -> colors.Color:
    """Colour of a used/limit ratio: the drawings' kW bands (layout.scene.palette), the last over it."""
    return colors.HexColor(palette.band_colour(ratio))


@dataclass(frozen=True)
class Budget:
    label: str
    used: float
    limit: float | None  # None: no limit set
    unit: str = "MW"


def budget_bars(items: Sequence[Budget], width: float = FRAME_W) -> Drawing:
    """Horizontal bars of use against limit, one per item; the limit is the 100 % mark."""
    label_w, value_w, bar_h, gap = 95.0, 150.0, 9.0, 5.0
    bar_w = width - label_w - value_w - 8
    top = 14.0
    h = top + len(items) * (bar_h + gap) + 4
    d = Drawing(width, h)
    scale_max = max([1.0] + [b.used / b.limit for b in items if b.limit])
    scale_max = min(scale_max, 2.0)
    x0 = label_w
    y = h - top
    for frac in (0.0, 0.5, 1.0):
        x = x0 + bar_w * frac / scale_max
        d.add(
            Line(
                x,
                4,
                x,
                h - top + 6,
                strokeColor=RULE if frac < 1 else INK,
                strokeWidth=0.4 if frac < 1 else 0.8,
                strokeDashArray=None if frac < 1 else [2, 1.5],
            )
        )
        d.add(_label(x, h - top + 8, "limit" if frac == 1 else f"{frac:.0%}", 6, MUTED, "middle"))
    for b in items:
        y -= bar_h + gap
        d.add(_label(0, y + 2, safe_plain(b.label), 7))
        d.add(_bar(x0, y, bar_w, bar_h, ZEBRA))
        if b.limit:
            ratio = b.used / b.limit
            d.add(_bar(x0, y, bar_w * min(ratio, scale_max) / scale_max, bar_h, use_colour(ratio)))
            text = f"{b.used:,.2f} of {b.limit:,.2f} {b.unit} ({ratio:.0%})"
        else:
            text = f"{b.used:,.2f} {b.unit} (no limit set)"
            d.add(_bar(x0, y, 2, bar_h, MUTED))
        d.add(_label(x0 + bar_w + 6, y + 2, text, 7))
    return d


MEDIA_COLOURS: dict[str, colors.Color] = {
    "dac": colors.HexColor("#b35806"),
    "aec": colors.HexColor("#f1a340"),
    "mmf": colors.HexColor("#5e3c99"),
    "smf": colors.HexColor("#2166ac"),
    "coherent": colors.HexColor("#1b7837"),
    "utp": colors.HexColor("#878787"),
}
MEDIA_LABELS = {
    "dac": "Passive copper (DAC)",
    "aec": "Active copper (AEC)",
    "mmf": "Multimode fibre",
    "smf": "Single-mode fibre",
    "coherent": "Coherent optics",
    "utp": "Twisted-pair copper (UTP)",
}


def media_mix_chart(counts: dict[str, int], width: float = FRAME_W) -> Drawing:
    """Horizontal bars: links per media class, with count and share."""
    total = sum(counts.values()) or 1
    keys = [k for k in MEDIA_COLOURS if k in counts] + sorted(k for k in counts if k not in MEDIA_COLOURS)
    bar_h, gap, label_w, value_w = 11.0, 5.0, 110.0, 110.0
    h = len(keys) * (bar_h + gap) + 6
    d = Drawing(width, h)
    bar_w = width - label_w - value_w
    peak = max(counts.values()) if counts else 1
    y = h
    for k in keys:
        y -= bar_h + gap
        n = counts[k]
        d.add(_label(0, y + 2.5, MEDIA_LABELS.get(k, k), 7.5))
        d.add(_bar(label_w, y, max(bar_w * n / peak, 0.5 if n else 0), bar_h, MEDIA_COLOURS.get(k, MUTED)))
        d.add(_label(label_w + bar_w + 6, y + 2.5, f"{n:,} links ({n / total:.1%})", 7.5))
    return d


LENGTH_BIN_EDGES_M: tuple[float, ...] = (
    0,
    1,
    2,
    3,
    5,
    7,
    10,
    15,
    20,
    30,
    50,
    75,
    100,
    150,
    200,
    300,
    500,
    1000,
    2000,
)


def length_bins(length_m: np.ndarray, media_class: Any) -> tuple[list[str], dict[str, np.ndarray]]:
    """Bin labels and links per bin for each media class present (bins follow the media reaches).
    ``media_class``: one class name per link (an array, or a pandas Categorical: no string per link)."""
    edges = np.array(LENGTH_BIN_EDGES_M + (math.inf,))
    nb = len(edges) - 1
    codes, names = pd.factorize(media_class)
    present = [str(k) for k in names]
    classes = [k for k in MEDIA_COLOURS if k in present] + sorted(
        k for k in present if k not in MEDIA_COLOURS
    )
    idx = np.clip(np.searchsorted(edges, length_m, side="right") - 1, 0, nb - 1)
    keep = codes >= 0
    per_class = np.bincount(codes[keep] * nb + idx[keep], minlength=len(present) * nb).reshape(-1, nb)
    counts = {k: per_class[present.index(k)] for k in classes}
    labels = [_metres(edges[i]) + "-" + _metres(edges[i + 1]) for i in range(nb - 1)] + [
        f">{_metres(edges[-2])}"
    ]
    return labels, counts


def _metres(v: float) -> str:
    return f"{v / 1000:g}k" if v >= 1000 else f"{v:g}"


def length_histogram(
    length_m: np.ndarray, media_class: np.ndarray, width: float = FRAME_W, height: float = 170.0
) -> Drawing:
    """Links per routed-length bin, stacked by media class, on a log count axis."""
    labels, counts = length_bins(length_m, media_class)
    classes = list(counts)
    nb = len(labels)
    total = sum(counts.values(), np.zeros(nb, dtype=np.int64))
    left, bottom, right, top = 34.0, 30.0, 6.0, 22.0
    d = Drawing(width, height)
    pw, ph = width - left - right, height - bottom - top
    peak = max(int(total.max()) if len(total) else 1, 1)
    decades = max(1, math.ceil(math.log10(peak + 1)))

    def yof(v: float) -> float:
        return bottom + ph * (math.log10(v + 1) / decades)

    for power in range(-1, decades + 1):
        v = 0 if power < 0 else 10**power
        y = yof(v)
        d.add(Line(left, y, left + pw, y, strokeColor=RULE, strokeWidth=0.3))
        d.add(_label(left - 3, y - 2.5, f"{v:,}", 6, MUTED, "end"))
    bw = pw / nb
    for i in range(nb):
        x = left + i * bw + 1
        base = 0
        for k in classes:
            n = int(counts[k][i])
            if n:
                d.add(_bar(x, yof(base), bw - 2, yof(base + n) - yof(base), MEDIA_COLOURS.get(k, MUTED)))
                base += n
        if base:
            d.add(_label(x + (bw - 2) / 2, yof(base) + 2, f"{base:,}", 5.5, INK, "middle"))
        d.add(_label(x + (bw - 2) / 2, bottom - 9, labels[i], 5.5, INK, "middle"))
    d.add(_label(left + pw / 2, bottom - 19, "routed length (m)", 6.5, MUTED, "middle"))
    d.add(_label(left - 28, bottom + ph + 10, "links (log scale)", 6.5, MUTED))
    x = left + 90
    for k in classes:
        name = MEDIA_LABELS.get(k, k)
        d.add(_bar(x, bottom + ph + 9, 7, 7, MEDIA_COLOURS.get(k, MUTED)))
        d.add(_label(x + 9, bottom + ph + 10, name, 6.5))
        x += 12 + stringWidth(name, FONT, 6.5) + 8
    return d
