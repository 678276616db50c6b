"""The one colour table every drawing uses: kW-use bands, rack-kind colours and every element's colour.

A rack's *use* is its kW over its limit (the hall's ``max_rack_kw``, or the template's own limit). Its
*band* is the first of :data:`BANDS` whose upper bound the use does not exceed, so a rack at exactly 50 %
is in the first band and one at 75 % in the second, in the PDF, the SVG and the TUI alike.

GPU racks are coloured by their band; network, spine, core, storage, management racks and CDUs by their
kind (everywhere: a leaf rack at 30 % is blue in every drawing, never green in one and blue in another);
a rack with no load (an empty user-row position) is white. Any rack over its limit is outlined in red.

Every other element a drawing shows (walls, columns, keep-outs, aisles, trays and ducts, cable bundles,
busways, violations) takes its colour from :data:`COLOURS`, the one table: the SVG and the PDF plans use
its #rrggbb, the DXF its layers' true colour and the nearest AutoCAD colour index (ACI) worked out from
that same #rrggbb (:attr:`Colour.aci`), so no drawing keeps a colour of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

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

OVER_EDGE = "#b00020"  # outline of a rack over its limit; violations and over-full trays alike

KIND_COLOURS: dict[str, str] = {
    "gpu": BANDS[1].colour,  # a GPU rack shown by kind (the TUI's kind view) takes the mid band's green
    "network": "#3b7dd8",
    "spine": "#7b4fc9",
    "core": "#e07b1a",
    "storage": "#2a9d8f",
    "management": "#8d99ae",
    "cdu": "#26c6da",  # coolant: cyan, apart from the management racks' grey-blue
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


# ------------------------------------------------------------------------------- every element
# (name, #rrggbb, what it colours): racks and CDUs by kind as above, then everything else a drawing shows
ELEMENTS: tuple[tuple[str, str, str], ...] = (
    *((k, c, KIND_LABELS[k]) for k, c in KIND_COLOURS.items()),
    ("fibre_cabinet", "#c2185b", "fibre cabinets of the cable plant (patch panels beyond the racks' U)"),
    ("ink", "#000000", "walls, outlines, notes, dimensions, title block (ACI 7: black on paper)"),
    ("viewport", "#808080", "viewport frames (not plotted)"),
    ("building", "#e4e4de", "building ground (plans)"),
    ("hall_floor", "#f1f1ee", "hall floor (plans)"),
    ("column", "#4a4a4a", "structural columns"),
    ("keepout", "#c0392b", "keep-out edge and hatch"),
    ("keepout_ground", "#f7e3e3", "keep-out ground under the hatch (plans)"),
    ("cold_aisle", "#d6e9fb", "cold aisle (rack fronts)"),
    ("hot_aisle", "#fbe0dc", "hot aisle (rack backs)"),
    ("rack_front", "#0b2545", "front edge of a rack (SVG plans)"),
    ("network_edge", "#08306b", "outline of a leaf, spine or core rack (PDF plans)"),
    ("tray", "#9c7a3c", "cable trays, risers and their labels, campus ducts (dashed), building entries"),
    ("violation", OVER_EDGE, "design-rule violations, racks over their limit, trays over their fill"),
    ("power", "#a500a5", "busways, row and hall IT load"),
    ("dac", "#4c0000", "cable bundles: passive copper DAC"),
    ("aec", "#a55200", "cable bundles: active electrical cables"),
    ("mmf", "#00ffff", "cable bundles: multimode fibre"),
    ("smf", "#ffbf00", "cable bundles: single-mode fibre"),
    ("coherent", "#bf00ff", "cable bundles: coherent optics"),
    ("utp", "#808080", "cable bundles: twisted-pair copper"),
)

# The AutoCAD colour index: the RGB of ACI 0..255 (as ezdxf reads and writes them), 16 per line.
_ACI_TABLE = (
    "000000ff0000ffff0000ff0000ffff0000ffff00ffffffff808080c0c0c0ff0000ff7f7fa50000a552527f00007f3f3f"
    "4c00004c2626260000261313ff3f00ff9f7fa52900a567527f1f007f4f3f4c13004c2f26260900261713ff7f00ffbf7f"
    "a55200a57c527f3f007f5f3f4c26004c3926261300261c13ffbf00ffdf7fa57c00a591527f5f007f6f3f4c39004c4226"
    "261c00262113ffff00ffff7fa5a500a5a5527f7f007f7f3f4c4c004c4c26262600262613bfff00dfff7f7ca50091a552"
    "5f7f006f7f3f394c00424c261c26002126137fff00bfff7f52a5007ca5523f7f005f7f3f264c00394c261326001c2613"
    "3fff009fff7f29a50067a5521f7f004f7f3f134c002f4c2609260017261300ff007fff7f00a50052a552007f003f7f3f"
    "004c00264c2600260013261300ff3f7fff9f00a52952a567007f1f3f7f4f004c13264c2f00260913581700ff7f7fffbf"
    "00a55252a57c007f3f3f7f5f004c26264c3900261313581c00ffbf7fffdf00a57c52a591007f5f3f7f6f004c39264c42"
    "00261c13585800ffff7fffff00a5a552a5a5007f7f3f7f7f004c4c264c4c00262613585800bfff7fdfff007ca55291a5"
    "005f7f3f6f7f00394c26427e001c26135858007fff7fbfff0052a5527ca5003f7f3f5f7f00264c26397e001326131c58"
    "003fff7f9fff0029a55267a5001f7f3f4f7f00134c262f7e0009261317580000ff7f7fff0000a55252a500007f3f3f7f"
    "00004c26267e0000261313583f00ff9f7fff2900a56752a51f007f4f3f7f13004c2f267e0900261713587f00ffbf7fff"
    "5200a57c52a53f007f5f3f7f26004c39267e1300261c1358bf00ffdf7fff7c00a59152a55f007f6f3f7f39004c42264c"
    "1c0026581358ff00ffff7fffa500a5a552a57f007f7f3f7f4c004c4c264c260026581358ff00bfff7fdfa5007ca55291"
    "7f005f7f3f6f4c00394c264226001c581358ff007fff7fbfa50052a5527c7f003f7f3f5f4c00264c263926001358131c"
    "ff003fff7f9fa50029a552677f001f7f3f4f4c00134c262f260009581317000000656565666666999999ccccccffffff"
)
ACI_RGB: tuple[int, ...] = tuple(int(_ACI_TABLE[i : i + 6], 16) for i in range(0, len(_ACI_TABLE), 6))
FOREGROUND_ACI = 7  # black on paper, white on a dark screen: what black is in a DXF


@dataclass(frozen=True)
class Colour:
    """One entry of :data:`COLOURS`: its #rrggbb, and as a DXF takes it."""

    name: str
    hex: str  # #rrggbb
    description: str

    @property
    def rgb(self) -> tuple[int, int, int]:
        v = int(self.hex[1:], 16)
        return (v >> 16, (v >> 8) & 0xFF, v & 0xFF)

    @property
    def aci(self) -> int:
        """The nearest AutoCAD colour index (:func:`nearest_aci`); black is ACI 7, the foreground
        colour, which plots black."""
        return nearest_aci(self.rgb)

    @property
    def true_colour(self) -> tuple[int, int, int] | None:
        """The RGB a DXF layer carries besides its ACI; None for ACI 7, which must follow the screen
        (black on a white background, white on a dark one)."""
        return None if self.aci == FOREGROUND_ACI else self.rgb


def _lab(rgb: npt.ArrayLike) -> np.ndarray:
    """CIELAB (D65) of sRGB colours (0..255), the last axis r, g, b."""
    c = np.asarray(rgb, float) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = c @ _SRGB_TO_XYZ.T / _D65
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


_SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
_D65 = np.array([0.95047, 1.0, 1.08883])


def nearest_aci(rgb: tuple[int, int, int]) -> int:
    """The ACI (1..255) nearest ``rgb`` as the eye sees it (least CIE76 distance in CIELAB; the lower
    index on a tie); ACI 7 counts as black, which it plots as on paper."""
    d = ((_ACI_LAB - _lab(rgb)) ** 2).sum(axis=1)
    return int(np.argmin(d)) + 1


_aci_rgb = np.array([[(c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF] for c in ACI_RGB[1:]], float)
_aci_rgb[FOREGROUND_ACI - 1] = 0.0
_ACI_LAB = _lab(_aci_rgb)  # ACI 1..255


COLOURS: Mapping[str, Colour] = MappingProxyType({n: Colour(n, c, d) for n, c, d in ELEMENTS})
