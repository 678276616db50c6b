"""One palette for every drawing: the DXF's layers, the SVG plans and the PDF plans take the colour of
each element kind from layout.scene.palette, and the CDUs of a liquid-cooled hall are drawn in all three.

The DXF and the SVG are read back (ezdxf, xml); the PDF plans are checked where they are drawn: every
batch of the plans chapter names the element kind it paints (``Batch.role``).
"""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from typing import Any

import ezdxf
import pytest
from ezdxf.colors import DXF_DEFAULT_COLORS
from reportlab.lib import colors

from layout.export import dxf, svg
from layout.export.pdf import plan as pdf_plan
from layout.export.pdf.chapters import plans as pdf_plans
from layout.scene import Scene, palette, scene_of
from layout.scene.palette import COLOURS

SITE, HALL = "gb200-hall", "B1/H1"  # liquid cooling: nine CDUs in a CDU gallery (a keep-out)

# element kind -> the DXF layer drawn in its colour
DXF_LAYERS = {
    **{kind: layer for kind, layer in dxf.RACK_LAYER.items()},
    **{medium: layer for medium, layer in dxf.MEDIA_LAYER.items()},
    "ink": "A-HALL-OTLN",
    "column": "S-COLS",
    "keepout": "A-AREA-KOUT",
    "tray": "E-TRAY",
    "violation": "G-ANNO-VIOL",
    "power": "E-POWR",
}


@pytest.fixture(scope="module")
def design(design_of: Callable[[str], Any]) -> Any:
    return design_of(SITE)


@pytest.fixture(scope="module")
def scene(design: Any) -> Scene:
    return scene_of(design)


@pytest.fixture(scope="module")
def hall_cdus(scene: Scene) -> int:
    assert scene.cdus is not None
    n = int((scene.cdus["hall"] == HALL).sum())
    assert n > 0
    return n


def hex_of(c: colors.Color | None) -> str | None:
    return None if c is None else "#" + c.hexval()[2:].lower()


def test_the_aci_table_is_the_one_ezdxf_reads_and_black_is_the_foreground() -> None:
    assert tuple(DXF_DEFAULT_COLORS) == palette.ACI_RGB
    assert palette.nearest_aci((0, 0, 0)) == 7 and palette.nearest_aci((255, 0, 0)) == 1
    assert palette.nearest_aci((0x7F, 0xFF, 0xFF)) == 131  # an ACI's own colour is its own index
    assert COLOURS["ink"].true_colour is None  # ACI 7 follows the screen: no true colour


def test_dxf_layers_take_the_palettes_colour_and_draw_the_cdus(scene: Scene, hall_cdus: int) -> None:
    data = dxf.document_bytes(dxf.build_scene_document(scene), scene.site.site.date)
    doc = ezdxf.read(io.StringIO(data.decode("utf-8")))
    for ly in dxf.layer_table():
        layer = doc.layers.get(ly.name)
        assert layer.color == COLOURS[ly.colour].aci, ly.name
        rgb = COLOURS[ly.colour].true_colour
        assert (tuple(layer.rgb) if layer.rgb is not None else None) == rgb, ly.name
    for kind, name in DXF_LAYERS.items():
        layer = doc.layers.get(name)
        assert (layer.color, layer.rgb is None or tuple(layer.rgb) == COLOURS[kind].rgb) == (
            COLOURS[kind].aci,
            True,
        )
    msp = doc.modelspace()
    # the hatch of a keep-out is drawn by layer, in the keep-out colour
    assert {h.dxf.color for h in msp.query("HATCH[layer=='A-AREA-PATT']")} == {256}
    assert len(msp.query("LWPOLYLINE[layer=='M-EQPM-CDU']")) == hall_cdus


def svg_elements(root: ET.Element, kind: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("data-kind") == kind]


def test_svg_plans_take_the_palettes_colour_and_draw_the_cdus(scene: Scene, hall_cdus: int) -> None:
    root = ET.fromstring(svg.hall_svg(scene, HALL))
    cdus = svg_elements(root, "cdu")
    assert len(cdus) == hall_cdus and {e.get("fill") for e in cdus} == {COLOURS["cdu"].hex}
    for kind in ("network", "spine", "core", "storage", "management"):
        drawn = svg_elements(root, kind)
        assert drawn, kind
        assert {e.get("fill") for e in drawn} <= {COLOURS[kind].hex, palette.EMPTY}, kind
    gpu = {e.get("fill") for e in svg_elements(root, "gpu")}
    assert gpu and gpu <= {b.colour for b in palette.BANDS} | {palette.EMPTY}
    (column, *_) = svg_elements(root, "column")
    assert column.get("fill") == COLOURS["column"].hex
    (keepout,) = svg_elements(root, "keepout")
    assert keepout.get("stroke") == COLOURS["keepout"].hex
    ns = "{http://www.w3.org/2000/svg}"
    hatch = next(e for e in root.iter(f"{ns}pattern") if e.get("id") == "hatch")
    assert hatch.find(f"{ns}rect").get("fill") == COLOURS["keepout_ground"].hex  # type: ignore[union-attr]
    assert hatch.find(f"{ns}line").get("stroke") == COLOURS["keepout"].hex  # type: ignore[union-attr]
    for kind in ("cold_aisle", "hot_aisle"):
        assert {e.get("fill") for e in svg_elements(root, kind)} == {COLOURS[kind].hex}
    site = ET.fromstring(svg.site_svg(scene))
    entries = [e for e in site.iter(f"{ns}circle")]
    assert entries and {e.get("stroke") for e in entries} == {COLOURS["tray"].hex}  # where the ducts come in


def plans_of(story: list[Any]) -> Iterator[pdf_plan.Plan]:
    for f in story:
        if isinstance(f, pdf_plan.Plan):
            yield f
        yield from plans_of(getattr(f, "_content", []))


# role -> (fill, stroke) the PDF plans paint it in (None: not painted, or not checked)
PDF_PAINT = {
    "cdu": (COLOURS["cdu"].hex, None),
    "column": (COLOURS["column"].hex, None),
    "tray": (None, COLOURS["tray"].hex),
    "violation": (None, COLOURS["violation"].hex),
    "hall_floor": (COLOURS["hall_floor"].hex, None),
    "building": (COLOURS["building"].hex, None),
}


def test_pdf_plans_take_the_palettes_colour_and_draw_the_cdus(
    design: Any, scene: Scene, hall_cdus: int
) -> None:
    (plan,) = plans_of(pdf_plans.story(design, scene))  # one hall: no site plan
    roles = {b.role for b in plan.batches}
    assert {"cdu", "column", "keepout", "tray", "rack", "hall_floor"} <= roles
    fills = {c.hex for c in COLOURS.values()} | set(palette.FILLS)
    for b in plan.batches:
        if b.role == "keepout":  # ground and edge, then the hatch in the edge's colour
            assert hex_of(b.fill) in (COLOURS["keepout_ground"].hex, None)
            assert hex_of(b.stroke) == COLOURS["keepout"].hex
        elif b.role == "rack":
            assert hex_of(b.fill) in palette.FILLS
        elif b.role in PDF_PAINT:
            fill, stroke = PDF_PAINT[b.role]
            assert fill is None or hex_of(b.fill) == fill, b.role
            assert stroke is None or hex_of(b.stroke) == stroke, b.role
        elif b.kind != "text" and b.fill is not None:
            assert hex_of(b.fill) in fills | {"#ffffff", hex_of(pdf_plan.INK)}, b  # scale bar, row grounds
    cdus = [b for b in plan.batches if b.role == "cdu" and b.kind == "rects"]
    assert sorted(len(b.data) for b in cdus) == [1, hall_cdus]  # the hall's CDUs and the legend's swatch
