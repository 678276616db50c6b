"""The drawing's tables: layers (name, colour, linetype, lineweight, description), linetypes, text
styles and the dimension style per plot scale; the units and text sizes every part of the drawing uses."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ezdxf.document import Drawing

from layout.scene import MEDIA_CLASSES
from layout.scene.palette import COLOURS, Colour

MM_PER_M = 1000.0
DXF_VERSION = "R2018"
APPID = "DCLAYOUT"
# Text on paper (mm): nothing plots smaller than MIN_TEXT_MM, notes at NOTE_MM, titles at TITLE_MM or more.
# A label that cannot be that big where it goes is shortened or left off that sheet, never shrunk.
MIN_TEXT_MM = 1.8
NOTE_MM = 2.0
TITLE_MM = 2.5


@dataclass(frozen=True)
class Layer:
    """One CAD layer: name in discipline-major-minor form, colour (a name in the palette,
    :data:`layout.scene.palette.COLOURS`), linetype, pen width."""

    name: str
    colour: str
    linetype: str
    lineweight_mm: float
    description: str
    plot: bool = True
    transparency: float = 0.0  # 0 opaque .. 1 invisible; trays are translucent so racks show through

    @property
    def paint(self) -> Colour:
        return COLOURS[self.colour]

    @property
    def color(self) -> int:
        """AutoCAD colour index: the palette colour's nearest."""
        return self.paint.aci

    @property
    def rgb(self) -> tuple[int, int, int] | None:
        """True colour (the palette's #rrggbb), None on layers in the foreground colour (ACI 7)."""
        return self.paint.true_colour

    @property
    def lineweight(self) -> int:
        """DXF lineweight code (hundredths of a millimetre)."""
        return round(self.lineweight_mm * 100)


LAYERS: tuple[Layer, ...] = (
    Layer("A-BLDG-OTLN", "ink", "Continuous", 0.70, "Building outline (exterior walls)"),
    Layer("A-HALL-OTLN", "ink", "Continuous", 0.50, "Data hall walls"),
    Layer("A-AREA-KOUT", "keepout", "DASHED", 0.35, "Keep-out zones (electrical rooms, CDU galleries)"),
    Layer("A-AREA-PATT", "keepout", "Continuous", 0.13, "Keep-out hatch"),
    Layer("A-DOOR-IDEN", "tray", "Continuous", 0.25, "Building entry (where the campus ducts come in)"),
    Layer("S-COLS", "column", "Continuous", 0.50, "Structural columns"),
    Layer("S-GRID", "column", "CENTER", 0.18, "Column grid lines and bubbles (1, 2, ... and A, B, ...)"),
    Layer("E-RACK-GPU", "gpu", "Continuous", 0.35, "GPU racks"),
    Layer("E-RACK-NETW", "network", "Continuous", 0.35, "Leaf network racks"),
    Layer("E-RACK-SPIN", "spine", "Continuous", 0.35, "Spine racks"),
    Layer("E-RACK-MDF", "core", "Continuous", 0.35, "Core / MDF racks"),
    Layer("E-RACK-STOR", "storage", "Continuous", 0.35, "Storage racks"),
    Layer("E-RACK-MGMT", "management", "Continuous", 0.35, "Management racks"),
    Layer("M-EQPM-CDU", "cdu", "Continuous", 0.35, "Coolant distribution units"),
    Layer("T-EQPM-FIBR", "fibre_cabinet", "Continuous", 0.35, "Fibre cabinets (panels beyond the racks' U)"),
    Layer("T-EQPM-IDEN", "ink", "Continuous", 0.18, "Fibre cabinet tags (location and number: R25/K01/FC01)"),
    Layer("M-HYDR-SUPP", "cdu", "Continuous", 0.35, "Coolant supply headers, CDU to the rows it serves"),
    Layer("M-HYDR-RETN", "cdu", "DASHED", 0.35, "Coolant return headers, rows back to their CDU"),
    Layer(
        "E-RACK-IDEN",
        "ink",
        "Continuous",
        0.18,
        "Rack tags and attributes (id, template, kW, GPUs, row, hall)",
    ),
    Layer(
        "E-TRAY", "tray", "Continuous", 0.25, "Overhead cable trays, drawn at tray width", transparency=0.6
    ),
    Layer("E-TRAY-RISR", "tray", "Continuous", 0.25, "Tray risers"),
    Layer("E-TRAY-DUCT", "tray", "DASHED", 0.50, "Campus ducts between buildings", transparency=0.6),
    Layer("E-TRAY-IDEN", "tray", "Continuous", 0.18, "Tray labels: cables per medium and fill per segment"),
    Layer("E-CABL-DAC", "dac", "Continuous", 0.25, "Cable bundles: passive copper DAC"),
    Layer("E-CABL-AEC", "aec", "Continuous", 0.25, "Cable bundles: active electrical cables"),
    Layer("E-CABL-MMF", "mmf", "Continuous", 0.25, "Cable bundles: multimode fibre"),
    Layer("E-CABL-SMF", "smf", "Continuous", 0.25, "Cable bundles: single-mode fibre"),
    Layer("E-CABL-COHR", "coherent", "Continuous", 0.25, "Cable bundles: coherent optics"),
    Layer("E-CABL-UTP", "utp", "Continuous", 0.25, "Cable bundles: twisted-pair copper (out-of-band)"),
    Layer("E-POWR", "power", "Continuous", 0.25, "Power: row and hall IT load"),
    Layer("E-POWR-SLD", "power", "Continuous", 0.25, "Single-line diagrams, one per hall (SLD sheets)"),
    Layer("G-ANNO-VIOL", "violation", "Continuous", 0.50, "Design-rule violations (revision clouds)"),
    Layer("G-ANNO-TEXT", "ink", "Continuous", 0.25, "Notes at hall scale: hall and row labels"),
    Layer("G-ANNO-OVER", "ink", "Continuous", 0.35, "Site-scale notes: building and hall names, duct labels"),
    Layer("G-ANNO-DIMS", "ink", "Continuous", 0.18, "Dimensions: aisles, halls, walls and the column grid"),
    Layer(
        "G-ANNO-SETO", "ink", "Continuous", 0.18, "Setting-out: row starts from the hall corner, row lengths"
    ),
    Layer("G-ANNO-LEGN", "ink", "Continuous", 0.25, "Legend"),
    Layer("G-ANNO-SYMB", "ink", "Continuous", 0.25, "North arrow and scale bars"),
    Layer("G-TTLB", "ink", "Continuous", 0.50, "Drawing border and title block"),
    Layer("G-VPRT", "viewport", "Continuous", 0.13, "Viewports (not plotted)", plot=False),
)


LAYER_BY_NAME = {ly.name: ly for ly in LAYERS}

RACK_LAYER = {
    "gpu": "E-RACK-GPU",
    "network": "E-RACK-NETW",
    "spine": "E-RACK-SPIN",
    "core": "E-RACK-MDF",
    "storage": "E-RACK-STOR",
    "management": "E-RACK-MGMT",
    "cdu": "M-EQPM-CDU",
}
MEDIA_LAYER = dict(
    zip(MEDIA_CLASSES, ("E-CABL-DAC", "E-CABL-AEC", "E-CABL-MMF", "E-CABL-SMF", "E-CABL-COHR", "E-CABL-UTP"),
        strict=True)
)  # fmt: skip
MEDIA_TAG = {m: layer.rsplit("-", 1)[1] for m, layer in MEDIA_LAYER.items()}  # DAC, ..., COHR, UTP


# Layers that only make sense at one of the two kinds of sheet: frozen in the other's viewports.
HALL_ONLY_LAYERS = (
    "E-RACK-IDEN",
    "T-EQPM-IDEN",
    "E-TRAY-IDEN",
    "G-ANNO-DIMS",
    "G-ANNO-SETO",
    "G-ANNO-TEXT",
    "E-POWR",
    "S-GRID",
    "M-HYDR-SUPP",
    "M-HYDR-RETN",
)
OVERVIEW_ONLY_LAYERS = ("G-ANNO-OVER",)

# the power sheet of a hall shows the chain (busways on E-POWR) and leaves the cabling out
CABLING_LAYERS = (
    "E-TRAY",
    "E-TRAY-RISR",
    "E-TRAY-IDEN",
    *(f"E-CABL-{t}" for t in ("DAC", "AEC", "MMF", "SMF", "COHR", "UTP")),
)

# (name, description, pattern in paper millimetres: [total, dash, gap, ...]); scaled by $LTSCALE.
LINETYPES = (
    ("DASHED", "Dashed __ __ __", (8.0, 6.0, -2.0)),
    ("CENTER", "Center ____ _ ____ _", (22.0, 16.0, -2.0, 2.0, -2.0)),
)

# Text styles: ISO 3098 lettering for notes, a plain sans for the title block.
TEXT_STYLES = (("DCL-ISO", "isocp.shx"), ("DCL-TITLE", "arial.ttf"))
NOTE_STYLE = "DCL-ISO"
TITLE_STYLE = "DCL-TITLE"

# ATTRIB tags on every rack INSERT (invisible: CAD programs list them, data extraction reads them). The
# visible tag (K07) is a TEXT beside the INSERT, because LibreCAD does not display attributes.
RACK_ATTRIBS = ("RACK_ID", "TEMPLATE", "KW", "GPUS", "ROW", "HALL")


def layer_table() -> tuple[Layer, ...]:
    """The layer table the drawing declares (for tests and the README)."""
    return LAYERS


def layer_table_markdown() -> str:
    """The layer table as a Markdown table (name, colour index, linetype, lineweight, plotted, content,
    true colour)."""
    out = [
        "| Layer | ACI | Linetype | Lineweight | Plotted | Content | True colour |",
        "|---|---|---|---|---|---|---|",
    ]
    for ly in LAYERS:
        true = ly.paint.hex if ly.rgb is not None else "none (ACI 7)"
        out.append(
            f"| {ly.name} | {ly.color} | {ly.linetype} | {ly.lineweight_mm:.2f} mm | "
            f"{'yes' if ly.plot else 'no'} | {ly.description} | {true} |"
        )
    return "\n".join(out)


def rack_block_name(template_id: str) -> str:
    """Block name of a rack template: RACK-<ID> in upper case, characters CAD programs accept."""
    return "RACK-" + re.sub(r"[^A-Z0-9_-]", "_", template_id.upper())


def column_block_name(size_m: tuple[float, float]) -> str:
    w, d = (round(v * MM_PER_M) for v in size_m)
    return f"S-COL-{w}X{d}"


def declare(doc: Drawing) -> None:
    """Declare the linetypes, text styles, layers and the application id in a new document."""
    for name, desc, pattern in LINETYPES:
        doc.linetypes.add(name, list(pattern), description=desc)
    for name, font in TEXT_STYLES:
        doc.styles.add(name, font=font)
    for ly in LAYERS:
        layer = doc.layers.add(
            ly.name,
            color=ly.color,
            linetype=ly.linetype,
            lineweight=ly.lineweight,
            plot=ly.plot,
            transparency=ly.transparency or None,
        )
        layer.description = ly.description
        if ly.rgb is not None:
            layer.rgb = ly.rgb
    doc.appids.add(APPID)


DIMSTYLE_MM = {
    "dimtxt": 2.0,
    "dimasz": 2.0,
    "dimexe": 1.0,
    "dimexo": 0.0,
    "dimgap": 0.8,
    "dimtad": 0,
    "dimtih": 1,
    "dimtoh": 1,
    "dimdec": 0,
    "dimzin": 8,
    "dimlunit": 2,
    "dimlfac": 1.0,
    "dimtix": 0,
    "dimtofl": 1,
}


def dimstyle(doc: Drawing, scale: int) -> str:
    """One dimension style per plot scale: sizes in paper millimetres, DIMSCALE = the scale."""
    name = f"DCL-1-{scale}"
    if name not in doc.dimstyles:
        doc.dimstyles.add(name, dxfattribs={**DIMSTYLE_MM, "dimscale": float(scale), "dimtxsty": NOTE_STYLE})
    return name


def current_dimstyle(doc: Drawing, scale: int) -> None:
    """Make the hall scale's style current; LibreCAD draws every dimension from these header values."""
    name = dimstyle(doc, scale)
    doc.header["$DIMSTYLE"] = name
    doc.header["$DIMSCALE"] = float(scale)
    for key, value in DIMSTYLE_MM.items():
        doc.header["$" + key.upper()] = value
