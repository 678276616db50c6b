"""Notes in model and paper space: a TEXT in the note style, the spots a label may take and the boards
of space already taken that keep labels apart (most important first, the rest where there is room)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ezdxf.enums import TextEntityAlignment
from ezdxf.layouts import BaseLayout, Modelspace

from layout.export.dxf.fastpath import RawEntities, TrayText
from layout.export.dxf.layers import MM_PER_M, NOTE_STYLE
from layout.export.labels import Board, Box, grow, text_box


def note(
    space: BaseLayout,
    text: str,
    at: tuple[float, float],
    height: float,
    layer: str,
    align: TextEntityAlignment = TextEntityAlignment.MIDDLE_CENTER,
    rotation: float = 0.0,
    board: Board | None = None,
    raw: RawEntities | None = None,
) -> Box:
    """A TEXT in the note style; its box is taken on ``board`` (if given) and returned. In the model
    space with ``raw`` given, held there as text (:meth:`RawEntities.add_note`)."""
    if raw is not None and isinstance(space, Modelspace):
        raw.add_note(space, TrayText(layer, text, at, height, rotation, align))
    else:
        t = space.add_text(
            text, height=height, rotation=rotation, dxfattribs={"layer": layer, "style": NOTE_STYLE}
        )
        t.set_placement(at, align=align)
    box = text_box(text, at, height, align.name, rotation)
    if board is not None:
        board.take(grow(box, 0.1 * height))
    return box


class Spot(NamedTuple):
    """One place a label may go: text, anchor point, height, alignment, rotation."""

    text: str
    at: tuple[float, float]
    height: float
    align: TextEntityAlignment = TextEntityAlignment.MIDDLE_CENTER
    rotation: float = 0.0

    def box(self) -> Box:
        return grow(
            text_box(self.text, self.at, self.height, self.align.name, self.rotation), 0.15 * self.height
        )


def first_free(board: Board, spots: Sequence[Spot]) -> Spot | None:
    """The first of ``spots`` whose box is free on ``board`` (now taken), or None: the label is left off."""
    i = board.place(s.box() for s in spots)
    return None if i is None else spots[i]


def place_label(
    space: BaseLayout, board: Board, layer: str, spots: Sequence[Spot], raw: RawEntities | None = None
) -> Spot | None:
    """Draw the label at the first free of ``spots``; None (nothing drawn) when every one is taken."""
    got = first_free(board, spots)
    if got is not None:
        note(space, got.text, got.at, got.height, layer, got.align, got.rotation, raw=raw)
    return got


def to_mm(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    return [(x * MM_PER_M, y * MM_PER_M) for x, y in points]


def fit_height(text: str, height: float, width: float) -> float:
    """The text height, reduced so the text (about 0.8 x height per character) fits ``width``."""
    return min(height, width / (0.8 * max(len(text), 1)))


def upright(angle: float) -> float:
    """A text angle that reads from the bottom or the right of the sheet, never upside down."""
    a = angle % 360.0
    return a - 180.0 if 90.0 < a <= 270.0 else a


@dataclass
class Boards:
    """What is taken on the hall sheets (model mm, hall-scale notes) and on the overview sheets (site and
    building sheets, site-scale notes): a label keeps clear of those on the sheets it shows on."""

    hall: Board
    over: Board
