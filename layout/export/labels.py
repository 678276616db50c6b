"""Where labels go on a drawing: text boxes, and a board of what is taken so labels keep clear of it.

Pure geometry (no drawing library), shared by the exporters. A label is placed at the first of its
candidate spots whose box is free of everything placed before it, or left off: a drawing with fewer
labels that all read beats one with every label stacked on another. Units are whatever the caller draws
in (the DXF: model millimetres), as long as one board uses one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

Box = tuple[float, float, float, float]  # x0, y0, x1, y1

# a text's width per character of its height: the lettering's ~0.7, rounded up so boxes err wide
CHAR_W = 0.8

# (horizontal, vertical) of an anchor: 0 left / 0.5 centre / 1 right of the text, 0 bottom .. 1 top
ANCHORS = {
    "BOTTOM_LEFT": (0.0, 0.0),
    "BOTTOM_CENTER": (0.5, 0.0),
    "BOTTOM_RIGHT": (1.0, 0.0),
    "MIDDLE_LEFT": (0.0, 0.5),
    "MIDDLE_CENTER": (0.5, 0.5),
    "MIDDLE_RIGHT": (1.0, 0.5),
    "TOP_LEFT": (0.0, 1.0),
    "TOP_CENTER": (0.5, 1.0),
    "TOP_RIGHT": (1.0, 1.0),
}


def runs_text(numbers: Iterable[int], prefix: str = "") -> str:
    """Numbers in order as runs: (3, 4, 5, 9) -> '3-5, 9', or with ``prefix`` 'V' 'V3-V5, V9'."""
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{prefix}{r[0]}" if len(r) == 1 else f"{prefix}{r[0]}-{prefix}{r[-1]}" for r in runs)


def text_width(text: str, height: float) -> float:
    return CHAR_W * height * len(text)


def text_box(text: str, at: tuple[float, float], height: float, anchor: str = "MIDDLE_CENTER",
             rotation: float = 0.0) -> Box:  # fmt: skip
    """The box around ``text`` of ``height`` placed at ``at`` by ``anchor`` (a key of :data:`ANCHORS`,
    e.g. the name of an ezdxf TextEntityAlignment) and turned ``rotation`` degrees about ``at``."""
    w = text_width(text, height)
    fx, fy = ANCHORS[anchor]
    dx, dy = -fx * w, -fy * height
    if rotation == 0.0:
        return (at[0] + dx, at[1] + dy, at[0] + dx + w, at[1] + dy + height)
    if rotation == 90.0:  # turned a quarter: the text's x runs up the page, its y to the left
        return (at[0] - dy - height, at[1] + dx, at[0] - dy, at[1] + dx + w)
    c, s = math.cos(math.radians(rotation)), math.sin(math.radians(rotation))
    xs, ys = [], []
    for px, py in ((dx, dy), (dx + w, dy), (dx + w, dy + height), (dx, dy + height)):
        xs.append(at[0] + px * c - py * s)
        ys.append(at[1] + px * s + py * c)
    return (min(xs), min(ys), max(xs), max(ys))


def grow(box: Box, by: float) -> Box:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


class Board:
    """Boxes taken so far, bucketed in square cells of side ``cell`` so a look-up stays local."""

    def __init__(self, cell: float) -> None:
        self.cell = float(cell)
        self._cells: dict[tuple[int, int], list[Box]] = {}

    def _keys(self, box: Box) -> Iterable[tuple[int, int]]:
        c = self.cell
        for gx in range(math.floor(box[0] / c), math.floor(box[2] / c) + 1):
            for gy in range(math.floor(box[1] / c), math.floor(box[3] / c) + 1):
                yield (gx, gy)

    def free(self, box: Box) -> bool:
        return not any(overlap(box, b) for k in self._keys(box) for b in self._cells.get(k, ()))

    def take(self, box: Box) -> None:
        for k in self._keys(box):
            self._cells.setdefault(k, []).append(box)

    def place(self, boxes: Iterable[Box]) -> int | None:
        """The first of ``boxes`` that is free (and take it), or None when every one is taken."""
        for i, b in enumerate(boxes):
            if self.free(b):
                self.take(b)
                return i
        return None
