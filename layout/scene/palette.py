"""The one colour rule every drawing uses: kW-use bands and rack-kind colours.

A rack's *use* is its kW over its limit (the hall's ``max_rack_kw``, or the template's own limit). Its
*band* is the first of :data:`BANDS` whose upper bound the use does not exceed, so a rack at exactly 50 %
is in the first band and one at 75 % in the second, in the PDF, the SVG and the TUI alike.

GPU racks are coloured by their band; network, spine, core, storage, management racks and CDUs by their
kind (everywhere: a leaf rack at 30 % is blue in every drawing, never green in one and blue in another);
a rack with no load (an empty user-row position) is white. Any rack over its limit is outlined in red.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Band:
    upper: float  # the largest use (kW / limit) in the band
    colour: str  # #rrggbb
    label: str  # "< 50 %", ...


# use <= 1.0 is within the limit: the 1e-9 keeps a rack at exactly its limit out of the "over" band
BANDS: tuple[Band, ...] = (
    Band(0.5, "#b9e3b0", "< 50 %"),
    Band(0.8, "#63b85a", "50-80 %"),
    Band(1.0 + 1e-9, "#f2b134", "80-100 %"),
    Band(np.inf, "#d64541", "over the limit"),
)
OVER = len(BANDS) - 1  # band number of a rack over its limit

KIND_COLOURS: dict[str, str] = {
    "gpu": BANDS[1].colour,  # a GPU rack shown by kind (the TUI's kind view) takes the mid band's green
    "network": "#3b7dd8",
    "spine": "#7b4fc9",
    "core": "#e07b1a",
    "storage": "#2a9d8f",
    "management": "#8d99ae",
    "cdu": "#90a4ae",
}
KIND_LABELS: dict[str, str] = {
    "gpu": "GPU rack",
    "network": "Leaf / SU network rack",
    "spine": "Spine rack",
    "core": "Core / MDF rack",
    "storage": "Storage rack",
    "management": "Management rack",
    "cdu": "CDU",
}
RACK_KINDS: tuple[str, ...] = tuple(KIND_COLOURS)  # fixed order: the TUI's cell codes index it
OTHER_KIND = "#999999"  # a kind the table does not know
EMPTY = "#ffffff"  # a rack that draws no power
OVER_EDGE = "#b00020"  # outline of a rack over its limit
NETWORK_KINDS = frozenset({"network", "spine", "core"})


def use(kw: npt.ArrayLike, limit_kw: npt.ArrayLike) -> np.ndarray:
    """kW over limit per rack; 0 where there is no limit."""
    k = np.asarray(kw, float)
    lim = np.asarray(limit_kw, float)
    return np.divide(k, lim, out=np.zeros(np.broadcast(k, lim).shape), where=lim > 0)


def kw_band(ratio: npt.ArrayLike) -> np.ndarray:
    """Band number (index into :data:`BANDS`) of each use ratio."""
    upper = np.array([b.upper for b in BANDS[:-1]])
    return np.searchsorted(upper, np.asarray(ratio, float), side="left").astype(np.int64)


def band_colour(ratio: float) -> str:
    """The colour of one use ratio (budget bars of halls and buildings use the same bands)."""
    return BANDS[int(kw_band(np.array([ratio]))[0])].colour


# every fill a rack can take, in a fixed order (the TUI's cell codes index it): the bands, the other kinds
FILLS: tuple[str, ...] = (
    *(b.colour for b in BANDS),
    *(c for k, c in KIND_COLOURS.items() if k != "gpu"),
    OTHER_KIND,
    EMPTY,
)


def fill_index(kind: npt.ArrayLike, band: npt.ArrayLike, kw: npt.ArrayLike) -> np.ndarray:
    """Index into :data:`FILLS` of each rack by the rule above: GPU racks by band, other kinds by kind,
    unloaded white."""
    kinds = np.asarray(kind).astype(str)
    names, inverse = np.unique(kinds, return_inverse=True)
    by_kind = np.array([FILLS.index(KIND_COLOURS.get(str(k), OTHER_KIND)) for k in names], np.int64)
    out = by_kind[inverse.reshape(-1)] if len(kinds) else np.zeros(0, np.int64)
    gpu = kinds == "gpu"
    out[gpu] = np.asarray(band, np.int64)[gpu]
    out[np.asarray(kw, float) <= 0] = FILLS.index(EMPTY)
    return out


def rack_fill(kind: npt.ArrayLike, band: npt.ArrayLike, kw: npt.ArrayLike) -> np.ndarray:
    """The fill (#rrggbb) of each rack by the rule above."""
    return np.array(FILLS, dtype=object)[fill_index(kind, band, kw)].astype(str)
