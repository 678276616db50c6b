"""The DXF drawing of a small hand-built scene, read back and checked against hand-computed figures.

The scene: one 10 m x 6 m hall, two facing rows on a 1.2 m cold aisle (R01 fronts +y at y = 1.5 m, R02
fronts -y at y = 3.9 m: edges at 2.1 m and 3.3 m), three DGX racks each plus a leaf rack in R02, one
loaded row tray (4 DAC + 10 MMF), an empty cross tray, a riser, and four violations (a rack, a tray
point, the hall, the site).
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ezdxf
import pandas as pd
import pytest
from ezdxf.entities import Dimension
from ezdxf.lldxf.const import VALID_DXF_LINEWEIGHTS
from ezdxf.tools.juliandate import juliandate
from handbuilt import rack_record

from layout.export import dxf
from layout.export.dxf import annotate, blocks, document, fastpath, model, overlays, trays
from layout.export.dxf.sheets import Scales
from layout.load import Inputs
from layout.scene.palette import COLOURS
from layout.violations import Violation

rack = rack_record

HALL = {
    "columns": [{"at": [9.0, 5.0], "size_m": [0.6, 0.6]}],
    "keepouts": [{"polygon": [[8, 0], [10, 0], [10, 1.5], [8, 1.5]], "reason": "electrical room"}],
}
DAC_AREA = math.pi * 4.7**2  # 9.4 mm copper (catalog media.dac.diameter_mm)
MMF_AREA = math.pi * 1.5**2  # 3.0 mm fibre (catalog media.mmf.diameter_mm)


def placement() -> SimpleNamespace:
    racks = [
        rack(f"B1/H1/R01/K0{i + 1}", "dgx-h100-x4", "gpu", 1.3 + 0.6 * i, 1.5, 0.0, 0.6, 4) for i in range(3)
    ]
    racks += [
        rack(f"B1/H1/R02/K0{i + 1}", "dgx-h100-x4", "gpu", 1.3 + 0.6 * i, 3.9, 180.0, 0.6, 4)
        for i in range(3)
    ]
    racks.append(rack("B1/H1/R02/K04", "net-leaf", "network", 3.2, 3.9, 180.0, 0.8, 0))
    rows = pd.DataFrame(
        [
            {"row": "B1/H1/R01", "hall": "B1/H1", "axis": "x", "x0_m": 1.0, "y0_m": 1.5, "x1_m": 2.8, "y1_m": 1.5,
             "front_sign": 1, "kind": "gpu", "user_row": False},
            {"row": "B1/H1/R02", "hall": "B1/H1", "axis": "x", "x0_m": 1.0, "y0_m": 3.9, "x1_m": 3.6, "y1_m": 3.9,
             "front_sign": -1, "kind": "gpu", "user_row": False},
        ]
    )  # fmt: skip
    return SimpleNamespace(racks=pd.DataFrame(racks), rows=rows)


def cabling() -> SimpleNamespace:
    nodes = pd.DataFrame({"x_m": [0.7, 3.6, 3.6], "y_m": [1.5, 1.5, 3.9], "z_m": [2.9, 2.9, 2.9],
                          "hall": ["B1/H1"] * 3, "kind": ["end", "junction", "end"]})  # fmt: skip
    edges = pd.DataFrame({
        "u": [0, 1, 0], "v": [1, 2, 0], "length_m": [2.9, 2.4, 2.9], "kind": ["row", "cross", "riser"],
        "hall": ["B1/H1"] * 3, "where": ["B1/H1/R01+B1/H1/R03", "B1/H1", "B1 riser"], "line": [0, -1, -1],
        "width_mm": [600.0] * 3, "depth_mm": [100.0] * 3, "fill_limit": [0.5] * 3, "capacity_mm2": [30000.0] * 3,
    })  # fmt: skip
    area = 4 * DAC_AREA + 10 * MMF_AREA
    fill = pd.DataFrame({"cables": [14, 0, 14], "fill": [area / 60000.0, 0.0, area / 60000.0]})
    for mid in ("dac", "aec", "mmf", "smf-dr", "smf-fr", "coherent"):
        fill[f"cables_{mid}"] = {"dac": [4, 0, 4], "mmf": [10, 0, 10]}.get(mid, [0, 0, 0])
    return SimpleNamespace(trays=SimpleNamespace(nodes=nodes, edges=edges), edge_fill=fill)


VIOLATIONS = (
    Violation("rack_kw", "B1/H1/R01/K02", "1 rack(s) exceed 45 kW; worst at 46.0 kW"),
    Violation("tray_fill", "B1/H1/R01", "row tray 61% full", figures={"x_m": 2.0, "y_m": 1.5}),
    Violation("hall_mw", "B1/H1", "hall draws 0.30 MW, limit 0.25 MW"),
    Violation("capacity", "site", "12 racks do not fit"),
)


@pytest.fixture(scope="module")
def inputs(make_inputs: Callable[..., Inputs]) -> Inputs:
    return make_inputs(
        {"site": {"date": "2026-03-14", "revision": "C"}, "building": {0: {"hall": {0: HALL}}}}
    )


@pytest.fixture(scope="module")
def scene(inputs: Inputs) -> dxf.Scene:
    pl = placement()
    kw = [41.2, 46.0, 41.2, 41.2, 41.2, 41.2, 9.5]
    summary = {
        "gpus": 192,
        "racks": {"total": 7, "by_template": {"dgx-h100-x4": 6, "net-leaf": 1}},
        # summary.json's headline figures (layout/figures.py), which the title block prints
        "figures": {
            "gpus": {"label": "GPUs", "value": 192, "unit": ""},
            "racks": {"label": "racks", "value": 7, "unit": ""},
        },
    }
    return dxf.scene_from_parts(inputs, pl, kw, cabling(), VIOLATIONS, summary)


@pytest.fixture(scope="module")
def doc(scene: dxf.Scene) -> Any:
    """The drawing as a CAD program reads it: written to bytes, parsed back."""
    data = dxf.document_bytes(dxf.build_scene_document(scene), scene.site.site.date)
    return ezdxf.read(io.StringIO(data.decode("utf-8")))


def msp_query(doc: Any, q: str) -> list[Any]:
    return list(doc.modelspace().query(q))


# ------------------------------------------------------------------------------------------ layers
def test_layer_names_follow_the_discipline_major_minor_convention() -> None:
    names = [ly.name for ly in dxf.layer_table()]
    assert len(names) == len(set(names))
    for name in names:
        assert re.fullmatch(r"[AEGMST]-[A-Z]{4}(-[A-Z]{3,4})?", name), name


def test_every_layer_has_a_colour_linetype_and_plotting_lineweight() -> None:
    linetypes = {name for name, _d, _p in dxf.LINETYPES} | {"Continuous"}
    for ly in dxf.layer_table():
        assert 1 <= ly.color <= 255
        assert ly.linetype in linetypes
        assert ly.lineweight in VALID_DXF_LINEWEIGHTS
        assert ly.description


def test_layers_in_the_file_are_the_table(doc: Any) -> None:
    for ly in dxf.layer_table():
        layer = doc.layers.get(ly.name)
        assert (layer.color, layer.dxf.linetype, layer.dxf.lineweight) == (
            ly.color,
            ly.linetype,
            ly.lineweight,
        )
        assert layer.dxf.plot == int(ly.plot)
    assert doc.layers.get("G-VPRT").dxf.plot == 0


def test_layer_descriptions_fit_the_legend() -> None:
    assert all(len(ly.description) <= 60 for ly in dxf.layer_table())


def test_readme_lists_the_layer_table() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert dxf.layer_table_markdown() in readme


def test_layer_table_markdown_lists_every_layer() -> None:
    md = dxf.layer_table_markdown()
    assert md.count("\n") == len(dxf.layer_table()) + 1
    # ACI 4: the palette's multimode cyan (#00ffff), the lowest index of that colour
    assert "| E-CABL-MMF | 4 | Continuous | 0.25 mm | yes | Cable bundles: multimode fibre | #00ffff |" in md


def test_rack_kinds_and_media_classes_all_have_layers() -> None:
    from layout.model.catalog import MEDIA_CLASSES
    from layout.model.templates import RackKind

    names = {ly.name for ly in dxf.layer_table()}
    assert set(dxf.RACK_LAYER) == set(RackKind.__args__)  # type: ignore[attr-defined]
    assert set(dxf.MEDIA_LAYER) == set(MEDIA_CLASSES)
    assert set(dxf.RACK_LAYER.values()) | set(dxf.MEDIA_LAYER.values()) <= names


# ------------------------------------------------------------------------------------------ header
def header_value(data: bytes, var: str) -> str:
    """A header variable as written (ezdxf resets $TDCREATE and the GUIDs when it loads a file)."""
    m = re.search(rb"\n  9\n" + re.escape(var.encode()) + rb"\n *\d+\n([^\n]*)\n", data)
    assert m, var
    return m.group(1).decode()


def test_header_millimetres_r2018_fixed_dates_and_guids(doc: Any, scene: dxf.Scene) -> None:
    hdr = doc.header
    assert hdr["$INSUNITS"] == 4
    assert hdr["$MEASUREMENT"] == 1
    assert hdr["$ACADVER"] == "AC1032"
    data = dxf.document_bytes(dxf.build_scene_document(scene), scene.site.site.date)
    day = juliandate(pd.Timestamp("2026-03-14").to_pydatetime())  # the site file's date, not the clock
    for var in ("$TDCREATE", "$TDUPDATE", "$TDUCREATE", "$TDUUPDATE"):
        assert float(header_value(data, var)) == day
    for var in ("$FINGERPRINTGUID", "$VERSIONGUID"):
        assert header_value(data, var) == "{00000000-0000-0000-0000-000000000000}"
    body = data[data.index(b"ENDSEC") :]  # after the header, whose $HANDSEED also has group code 5
    handles = [int(h, 16) for h in re.findall(rb"\n  5\n([0-9A-F]+)\n", body)]
    assert int(header_value(data, "$HANDSEED"), 16) > max(handles)
    assert b"2026-03-14T00:00:00" in data and b"2026-11" not in data  # ezdxf's own stamps too


def test_text_styles_are_named_and_used(doc: Any) -> None:
    for name, font in dxf.TEXT_STYLES:
        assert doc.styles.get(name).dxf.font == font
    styles = {t.dxf.style for t in msp_query(doc, "TEXT")}
    assert styles == {dxf.NOTE_STYLE}


def test_same_scene_gives_the_same_bytes(scene: dxf.Scene) -> None:
    one = dxf.document_bytes(dxf.build_scene_document(scene), scene.site.site.date)
    dxf.build_scene_document(scene)  # a drawing built in between changes nothing
    two = dxf.document_bytes(dxf.build_scene_document(scene), scene.site.site.date)
    assert one == two


def test_fixed_metadata_is_switched_on_only_under_the_write_lock(
    scene: dxf.Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixed metadata switches a process-wide ezdxf option for the write: a write in another thread
    (the TUI exports in worker threads) must not switch it back halfway, so the write holds a lock."""
    import ezdxf
    from ezdxf.document import Drawing

    seen = []
    write = Drawing.write

    def watched(self: Drawing, *args: Any, **kwargs: Any) -> None:
        seen.append((document._WRITE_LOCK.locked(), ezdxf.options.write_fixed_meta_data_for_testing))
        write(self, *args, **kwargs)

    monkeypatch.setattr(Drawing, "write", watched)
    before = ezdxf.options.write_fixed_meta_data_for_testing
    dxf.document_bytes(dxf.build_scene_document(scene), scene.site.site.date)
    assert seen == [(True, True)]
    assert not document._WRITE_LOCK.locked() and ezdxf.options.write_fixed_meta_data_for_testing == before


def test_audit_finds_nothing(doc: Any) -> None:
    auditor = doc.audit()
    assert not auditor.has_errors, [e.message for e in auditor.errors]
    assert not auditor.has_fixes, [f.message for f in auditor.fixes]


# ------------------------------------------------------------------------------------------- racks
def test_one_block_per_rack_template_with_footprint_front_and_attdefs(doc: Any, inputs: Inputs) -> None:
    for tid, tpl in inputs.templates.items():
        blk = doc.blocks.get(dxf.rack_block_name(tid))
        outline = [e for e in blk if e.dxftype() == "LWPOLYLINE"]
        assert len(outline) == 1 and outline[0].closed
        xs = sorted({round(p[0]) for p in outline[0].get_points("xy")})
        ys = sorted({round(p[1]) for p in outline[0].get_points("xy")})
        assert xs == [-tpl.width_mm / 2, tpl.width_mm / 2] and ys == [-tpl.depth_mm / 2, tpl.depth_mm / 2]
        band = [e for e in blk if e.dxftype() == "SOLID"]
        assert band and all(v.y > 0 for s in band for v in s.vertices())  # the front is +y
        assert [a.dxf.tag for a in blk.attdefs()] == list(dxf.RACK_ATTRIBS)


def test_insert_count_per_block_is_the_rack_count_per_template(doc: Any) -> None:
    counts = Counter(i.dxf.name for i in msp_query(doc, "INSERT") if i.dxf.name.startswith("RACK-"))
    assert counts == {"RACK-DGX-H100-X4": 6, "RACK-NET-LEAF": 1}


def test_attribs_carry_each_racks_figures(doc: Any) -> None:
    got = {}
    for ins in msp_query(doc, "INSERT"):
        if ins.dxf.name.startswith("RACK-"):
            values = {a.dxf.tag: a.dxf.text for a in ins.attribs}
            got[values["RACK_ID"]] = (values, ins.dxf.layer, ins.dxf.rotation)
    assert got["B1/H1/R01/K02"] == (
        {
            "RACK_ID": "B1/H1/R01/K02",
            "TEMPLATE": "dgx-h100-x4",
            "KW": "46.0",
            "GPUS": "32",
            "ROW": "B1/H1/R01",
            "HALL": "B1/H1",
        },
        "E-RACK-GPU",
        0.0,
    )
    leaf = got["B1/H1/R02/K04"]
    assert (leaf[0]["GPUS"], leaf[0]["KW"], leaf[1], leaf[2]) == ("0", "9.5", "E-RACK-NETW", 180.0)
    assert len(got) == 7


def test_rack_tags_sit_towards_the_front_and_read_upright(doc: Any) -> None:
    tags = {t.dxf.text: t for t in msp_query(doc, "TEXT[layer=='E-RACK-IDEN']")}
    assert (
        set(tags) == {"K01", "K02", "K03", "K04"} and len(msp_query(doc, "TEXT[layer=='E-RACK-IDEN']")) == 7
    )
    r01 = [t for t in msp_query(doc, "TEXT[layer=='E-RACK-IDEN']") if t.dxf.align_point.y < 2700]
    r02 = [t for t in msp_query(doc, "TEXT[layer=='E-RACK-IDEN']") if t.dxf.align_point.y > 2700]
    # 30 % of the 1.2 m depth towards the front: R01 (front +y) at 1.86 m, R02 (front -y) at 3.54 m
    assert {round(t.dxf.align_point.y) for t in r01} == {1860}
    assert {round(t.dxf.align_point.y) for t in r02} == {3540}
    assert {t.dxf.rotation for t in r01 + r02} == {0.0}


def test_rack_tags_turn_or_are_left_off_to_stay_legible_at_the_sheet_scale(scene: dxf.Scene) -> None:
    order = scene.racks.sort_values("rack_id", kind="stable")
    scales = Scales(scene, dxf.plan_sheets(scene))
    dgx = order["template"] == "dgx-h100-x4"  # 600 wide, 1200 deep, "K01": 3 x 0.8 = 2.4 heights long

    def marks(scale: int) -> Any:
        scales.hall = {"B1/H1": scale}
        return dxf.rack_marks(order, scene.templates, scales)[dgx.to_numpy()]

    # 1:100: 75 % of 600 mm holds 3 characters 187.5 mm high: under 2 mm (200), over 1.8 mm (180)
    m = marks(100)
    assert set(m["tag_h"]) == {187.5} and set(m["tag_rot"]) == {0.0}
    # 1:50: 2 mm = 100 mm fits across
    assert set(marks(50)["tag_h"]) == {100.0}
    # 1:200: 1.8 mm = 360 mm > 187.5: turned along the depth (R01 faces +y: reads at 90 degrees)
    m = marks(200)
    assert set(m["tag_h"]) == {400.0} and set(m["tag_rot"]) == {90.0}
    # 1:500: 1.8 mm = 900 mm fits neither way (the width allows 70 % of 600 = 420 mm): no tag
    assert set(marks(500)["tag_h"]) == {0.0}


def test_rack_attributes_stay_inside_the_rack_outline(doc: Any) -> None:
    from plotcheck import text_corners

    inserts = msp_query(doc, "INSERT[name ? 'RACK-.*']")
    assert len(inserts) == 7
    for ins in inserts:
        blk = doc.blocks.get(ins.dxf.name)
        (outline,) = blk.query("LWPOLYLINE")
        m = ins.matrix44()
        corners = list(m.transform_vertices(outline.get_points("xy")))
        xs, ys = [p.x for p in corners], [p.y for p in corners]
        assert len(ins.attribs) == len(dxf.RACK_ATTRIBS)
        for a in ins.attribs:
            a.is_invisible = False  # as a CAD program with ATTDISP on shows them
            pts, _h, _t = text_corners(a)
            for x, y in pts:
                assert min(xs) - 1e-6 <= x <= max(xs) + 1e-6 and min(ys) - 1e-6 <= y <= max(ys) + 1e-6, (
                    a.dxf.text,
                    x,
                    y,
                )


def test_violation_tags_never_stand_on_one_another(inputs: Inputs) -> None:
    from plotcheck import collisions, sheet_texts

    many = tuple(
        Violation("rack_kw", f"B1/H1/R0{r}/K0{k}", f"rack over by {r}{k}") for r in (1, 2) for k in (1, 2, 3)
    )
    scene = dxf.scene_from_parts(inputs, placement(), [50.0] * 7, cabling(), many, {"gpus": 192})
    data = dxf.document_bytes(dxf.build_scene_document(scene), scene.site.site.date)
    doc = ezdxf.read(io.StringIO(data.decode("utf-8")))
    texts = sheet_texts(doc)["B1-H1"]
    tags = [t for t in texts if re.match(r"V\d", t.text) and t.space == "model"]
    assert 3 <= len(tags) <= 6  # six clouds on six neighbouring racks: some tags find room, none overlap
    assert not collisions(tags)
    assert not [c for c in collisions(texts) if c[0] in tags or c[1] in tags]


# -------------------------------------------------------------------------------------------- site
def test_building_hall_columns_and_keepouts(doc: Any) -> None:
    (bldg,) = msp_query(doc, "LWPOLYLINE[layer=='A-BLDG-OTLN']")
    assert sorted(bldg.get_points("xy")) == [(0, 0), (0, 30000), (40000, 0), (40000, 30000)]
    (hall,) = msp_query(doc, "LWPOLYLINE[layer=='A-HALL-OTLN']")
    assert sorted(hall.get_points("xy")) == [(0, 0), (0, 6000), (10000, 0), (10000, 6000)]
    (col,) = msp_query(doc, "INSERT[layer=='S-COLS']")
    assert (col.dxf.name, col.dxf.insert.x, col.dxf.insert.y) == ("S-COL-600X600", 9000, 5000)
    assert len(msp_query(doc, "LWPOLYLINE[layer=='A-AREA-KOUT']")) == 1
    assert len(msp_query(doc, "HATCH[layer=='A-AREA-PATT']")) == 1
    notes = {t.dxf.text: t for t in msp_query(doc, "TEXT[layer=='G-ANNO-TEXT']")}
    assert {"KEEP-OUT", "ELECTRICAL ROOM"} <= set(notes)
    assert notes["ELECTRICAL ROOM"].dxf.height == 2.5 * 20  # 2.5 mm at the hall's 1:20 fits the 2 m


def test_keepout_words_shrink_to_the_least_legible_size_then_are_left_off() -> None:
    # 90 % of 2 m = 1800 mm; 15 characters x 0.8 x h: 2.5 mm at 1:20 (50 mm, 600 mm long) fits
    assert dxf.keepout_lines("electrical room", 2000.0, 20) == [("KEEP-OUT", 50.0), ("ELECTRICAL ROOM", 50.0)]
    # at 1:100: 2.5 mm (250 mm) makes 3 m, 1.8 mm (180 mm) 2.16 m: too long; KEEP-OUT (8 ch) fits at 2.5 mm
    assert dxf.keepout_lines("electrical room", 2000.0, 100) == [("KEEP-OUT", 250.0)]
    # at 1:200: KEEP-OUT at 1.8 mm is 8 x 0.8 x 360 = 2.3 m: nothing is written
    assert dxf.keepout_lines("electrical room", 2000.0, 200) == []


def test_hall_overview_name_sits_away_from_the_racks() -> None:
    racks = placement().racks  # all in the lower left of the 10 x 6 m hall (x 1-3.6 m, y 1.5-3.9 m)
    # the 3 x 3 spot farthest from any rack: (8, 1.2) m is 5.5 m from K03 of R01 at (2.5, 1.5)
    # and from the leaf at (3.2, 3.9); (8, 4.8) m is only 4.9 m from the leaf
    assert model.clear_spot(racks, "B1/H1", (0.0, 0.0, 10.0, 6.0)) == pytest.approx((8000.0, 1200.0))
    assert model.clear_spot(racks.iloc[0:0], "B1/H1", (0.0, 0.0, 10.0, 6.0)) == (5000.0, 3000.0)
    # the keep-out in the corner (8-10 m, 0-1.5 m) rules out (8, 1.2) m; (8, 3) m and (8, 4.8) m are both
    # 4.9 m from the leaf at (3.2, 3.9): the one nearer the hall's centre wins
    keepout = [(8.0, 0.0, 10.0, 1.5)]
    spot = model.clear_spot(racks, "B1/H1", (0.0, 0.0, 10.0, 6.0), keepout, 0.5)
    assert spot == pytest.approx((8000.0, 3000.0))


def test_aisle_and_hall_dimensions_are_real_dimensions(doc: Any) -> None:
    dims = msp_query(doc, "DIMENSION[layer=='G-ANNO-DIMS']")
    measured = sorted(round(d.get_measurement()) for d in dims)
    assert measured == [1200, 6000, 10000]
    (cold,) = [d for d in dims if round(d.get_measurement()) == 1200]
    assert cold.dxf.text == "COLD <>"
    assert all(doc.blocks.get(d.dxf.geometry) is not None for d in dims)  # rendered for AutoCAD


def test_row_labels_and_power(doc: Any) -> None:
    texts = {t.dxf.text: t for t in msp_query(doc, "TEXT[layer=='G-ANNO-TEXT']")}
    assert {"R01", "R02"} <= set(texts)
    # in the cold aisle both rows face, at the first rack's end (x = 1.0 m)
    assert 2100 < texts["R01"].dxf.align_point.y < 3300 and texts["R01"].dxf.align_point.x == 1000
    assert 2100 < texts["R02"].dxf.align_point.y < 3300
    power = sorted(t.dxf.text for t in msp_query(doc, "TEXT[layer=='E-POWR']"))
    # rows: 41.2 + 46.0 + 41.2 = 128.4 kW; 3 x 41.2 + 9.5 = 133.1 kW; the hall: 261.5 kW
    assert power == ["128 kW", "133 kW", "IT 0.26 MW"]


# ------------------------------------------------------------------------------------------- trays
def test_tray_edge_table_lanes(inputs: Inputs) -> None:
    t = dxf.tray_edge_table(inputs, cabling().trays, cabling().edge_fill, placement().racks)
    assert t["lane_mm_dac"].iloc[0] == pytest.approx(4 * DAC_AREA / 100.0, abs=0.05)
    assert t["lane_mm_mmf"].iloc[0] == pytest.approx(10 * MMF_AREA / 100.0, abs=0.05)
    assert list(t["cables_smf"]) == [0, 0, 0]  # smf-dr + smf-fr add up per class
    assert list(t[["x0_m", "y0_m", "x1_m", "y1_m"]].iloc[1]) == [3.6, 1.5, 3.6, 3.9]
    # the row tray of R01 (fronts +y) labels behind its racks, 600 mm out; the cross tray on itself
    assert list(t[["side_x", "side_y", "clear_mm"]].iloc[0]) == [0.0, -1.0, 600.0]
    assert list(t[["side_x", "side_y", "clear_mm"]].iloc[1]) == [0.0, 0.0, 0.0]


def test_over_full_tray_squeezes_its_lanes_into_its_width(inputs: Inputs) -> None:
    cab = cabling()
    cab.edge_fill.loc[0, "cables_mmf"] = 20000  # 141,372 mm2 of fibre in a 600 x 100 tray
    t = dxf.tray_edge_table(inputs, cab.trays, cab.edge_fill, placement().racks)
    assert t["lane_mm_dac"].iloc[0] + t["lane_mm_mmf"].iloc[0] == pytest.approx(600.0, abs=0.2)


def test_trays_are_wide_polylines_with_one_bundle_per_medium(doc: Any) -> None:
    trays = msp_query(doc, "LWPOLYLINE[layer=='E-TRAY']")
    assert len(trays) == 2 and {p.dxf.const_width for p in trays} == {600.0}
    assert len(msp_query(doc, "INSERT[layer=='E-TRAY-RISR']")) == 1
    (dac,) = msp_query(doc, "LWPOLYLINE[layer=='E-CABL-DAC']")
    (mmf,) = msp_query(doc, "LWPOLYLINE[layer=='E-CABL-MMF']")
    assert dac.get_xdata(dxf.APPID)[1].value == 4 and mmf.get_xdata(dxf.APPID)[1].value == 10
    assert dac.dxf.const_width == pytest.approx(4 * DAC_AREA / 100.0, abs=0.05)
    # lanes stack from the tray's left edge: DAC first, MMF next to it (edge runs +x, left is +y)
    dac_y = dac.get_points("xy")[0][1]
    mmf_y = mmf.get_points("xy")[0][1]
    assert dac_y == pytest.approx(1500 - 300 + dac.dxf.const_width / 2, abs=0.1)
    assert mmf_y == pytest.approx(1500 - 300 + dac.dxf.const_width + mmf.dxf.const_width / 2, abs=0.1)
    for m in ("AEC", "SMF", "COHR"):
        assert not msp_query(doc, f"LWPOLYLINE[layer=='E-CABL-{m}']")


def test_loaded_segments_are_labelled_with_count_and_fill(doc: Any) -> None:
    labels = sorted(t.dxf.text for t in msp_query(doc, "TEXT[layer=='E-TRAY-IDEN']"))
    # (4 x 69.4 + 10 x 7.07 mm2) / (600 x 100 mm2) = 0.58 %; the empty cross tray carries no label
    assert labels == ["14: 4 DAC + 10 MMF | 1%", "RISER 14: 4 DAC + 10 MMF"]
    on_tray = {t.dxf.text: t for t in msp_query(doc, "TEXT[layer=='E-TRAY-IDEN']")}
    row = on_tray["14: 4 DAC + 10 MMF | 1%"]  # midway, behind R01's racks: 1500 - 600 - 0.75 h
    h = row.dxf.height
    assert h == 2.0 * 20  # 2 mm at the hall's 1:20 (the 2.9 m segment holds 23 characters of 32 mm)
    assert (row.dxf.align_point.x, row.dxf.rotation) == (2150.0, 0.0)
    assert row.dxf.align_point.y == pytest.approx(1500 - 600 - 0.75 * h)


def test_a_tray_label_too_long_for_its_segment_is_shortened_then_left_off(scene: dxf.Scene) -> None:
    scales = Scales(scene, dxf.plan_sheets(scene))
    at_200 = Scales(scene, dxf.plan_sheets(scene))
    at_200.hall = {"B1/H1": 200}
    at_800 = Scales(scene, dxf.plan_sheets(scene))
    at_800.hall = {"B1/H1": 800}

    def labels(sc: Any) -> list[tuple[str, float]]:
        return [(e.text, e.height) for e in dxf.tray_entities(scene, sc) if isinstance(e, dxf.TrayText)]

    full = ("14: 4 DAC + 10 MMF | 1%", 40.0)
    assert full in labels(scales)
    # at 1:200, 2 mm is 400 mm: 23 characters x 0.8 x 400 = 7.4 m > 90 % of 2.9 m; "14 | 1%": 2.2 m fits
    assert ("14 | 1%", 400.0) in labels(at_200) and all(t != full[0] for t, _ in labels(at_200))
    # at 1:800 (1.6 m high) not even the short one fits: no label, not a smaller one
    assert [t for t, _ in labels(at_800) if not t.startswith("RISER")] == []
    assert all(h / 800 >= dxf.MIN_TEXT_MM for _, h in labels(at_800))


def _ezdxf_trays(items: list[Any]) -> Any:
    """A document of the tray entities as ezdxf itself adds them, one at a time (the old way)."""
    doc = ezdxf.new(dxf.DXF_VERSION, setup=False)
    doc.appids.new(dxf.APPID)
    msp = doc.modelspace()
    for e in items:
        if isinstance(e, dxf.TrayLine):
            pl = msp.add_lwpolyline([e.p, e.q], dxfattribs={"layer": e.layer, "const_width": e.width})
            if e.xdata is not None:
                pl.set_xdata(dxf.APPID, [(1000, e.xdata[0]), (1071, e.xdata[1])])
        elif isinstance(e, dxf.TrayText):
            t = msp.add_text(e.text, height=e.height, rotation=e.rotation,
                             dxfattribs={"layer": e.layer, "style": dxf.NOTE_STYLE})  # fmt: skip
            t.set_placement(e.at, align=e.align)
        else:
            msp.add_blockref("E-RISER", e.at, dxfattribs={"layer": e.layer})
    return doc


def test_tray_text_is_what_ezdxf_writes(
    scene: dxf.Scene, written_entities: Callable[[Any], tuple[str, str, int]]
) -> None:
    items = dxf.tray_entities(scene, Scales(scene, dxf.plan_sheets(scene)))
    # every kind the trays draw: tray and bundle lines (with XDATA), a riser, both label placements
    assert {type(e) for e in items} == {dxf.TrayLine, dxf.TrayText, dxf.TrayRiser}
    assert any(isinstance(e, dxf.TrayLine) and e.xdata for e in items)
    labels = [e for e in items if isinstance(e, dxf.TrayText)]
    assert {e.align for e in labels} == {ezdxf.enums.TextEntityAlignment.BOTTOM_LEFT,
                                        ezdxf.enums.TextEntityAlignment.MIDDLE_CENTER}  # fmt: skip
    # and every other alignment the writer knows, turned as a label on a tray along y would be
    items = items + [
        dxf.TrayText("E-TRAY-IDEN", "7 | 1%", (10.0, 20.0), 40.0, 90.0, a) for a in fastpath.TEXT_ALIGN
    ]
    expected, owner, first = written_entities(_ezdxf_trays(items))
    got = dxf.tray_entities_text(items, "E-RISER", first, owner)
    assert got == expected
    handles = [int(h, 16) for h in re.findall(r"^  5\n([0-9A-F]+)$", got, re.M)]
    assert handles[0] == first and len(handles) == len(items)


def test_raw_entities_are_written_where_ezdxf_would_write_them() -> None:
    """Text put before the first model-space entity, between two, and after the last (before the paper
    space's entities in the ENTITIES section) is written there, with the handles ezdxf would have given
    the entities had it built them when the text was made."""

    def entities_section(text: str) -> str:
        start = text.index("ENTITIES\n")
        return text[start : text.index("  0\nENDSEC\n", start)]

    lines = [fastpath.TrayLine("E-TRAY", (0.0, float(k)), (1.0, float(k)), 10.0) for k in range(3)]
    doc = ezdxf.new(dxf.DXF_VERSION, setup=False)
    msp = doc.modelspace()
    for r in (1.0, 2.0):
        msp.add_circle((0, 0), r)
    raw = fastpath.RawEntities()
    for line, place in zip(lines, (0, 1, 2), strict=True):
        raw.add_trays(msp, [line], "E-RISER", place)
    doc.paperspace().add_line((0, 0), (1, 1))
    got = entities_section(fastpath.write_with_raw_entities(doc, raw))

    ref = ezdxf.new(dxf.DXF_VERSION, setup=False)
    rsp = ref.modelspace()
    c1, c2 = (rsp.add_circle((0, 0), r) for r in (1.0, 2.0))
    l0, l1, l2 = (
        rsp.add_lwpolyline([e.p, e.q], dxfattribs={"layer": e.layer, "const_width": e.width}) for e in lines
    )
    rsp.entity_space.entities[:] = [l0, c1, l1, c2, l2]
    ref.paperspace().add_line((0, 0), (1, 1))
    stream = io.StringIO()
    ref.write(stream)
    assert got == entities_section(stream.getvalue())
    assert str(doc.entitydb.handles) == str(ref.entitydb.handles)  # $HANDSEED


def test_cable_text_names_the_media() -> None:
    assert trays.cable_text(412, {"dac": 0, "mmf": 412}) == "412 MMF"
    assert trays.cable_text(13, {"smf": 12, "utp": 1}) == "13: 12 SMF + 1 UTP"
    assert trays.cable_text(0, {"dac": 0}) == "0"


# -------------------------------------------------------------------------------------- violations
def test_violations_are_clouds_on_their_layer(doc: Any) -> None:
    clouds = msp_query(doc, "LWPOLYLINE[layer=='G-ANNO-VIOL']")
    assert len(clouds) == 3  # the rack, the tray point, the hall; "site" has no place to draw
    assert all(c.closed and c.has_arc for c in clouds)
    # tags inside a hall are hall-scale notes (frozen on the overview sheets), in the violations' red
    red = dxf.LAYER_BY_NAME["G-ANNO-VIOL"]
    tags = sorted(
        t.dxf.text for t in msp_query(doc, "TEXT[layer=='G-ANNO-TEXT']") if t.dxf.color == red.color
    )
    assert red.color == COLOURS["violation"].aci and red.rgb == COLOURS["violation"].rgb
    # numbered by (where, kind): B1/H1 hall_mw, B1/H1/R01 tray_fill, B1/H1/R01/K02 rack_kw, site capacity
    assert tags == ["V1 hall_mw", "V2 tray_fill", "V3 rack_kw"]
    assert not msp_query(doc, "TEXT[layer=='G-ANNO-VIOL']")  # no violation names a building alone


def test_tag_list_collapses_runs() -> None:
    assert overlays.tag_list([3, 4, 5, 9, 11, 12]) == "V3-V5, V9, V11-V12"


# ------------------------------------------------------------------------------------------ sheets
def test_fit_scale_picks_the_largest_standard_scale_that_fits() -> None:
    # viewport 621 x 555 mm less 12 mm all round = 597 x 531 mm of drawing area:
    # 44 x 26 m fits at 1:100 (440 mm), not at 1:50 (880 mm); 106 m at 1:200 = 530 mm <= 531
    assert dxf.fit_scale(44, 26) == 100
    assert dxf.fit_scale(72, 106) == 200
    assert dxf.fit_scale(72, 107) == 500
    assert dxf.fit_scale(56, 36) == 100
    assert dxf.fit_scale(460, 390) == 1000
    assert dxf.fit_scale(5, 5) == 20


def test_scale_bar_is_a_round_length_near_100_mm() -> None:
    assert blocks.nice_bar(100) == (10.0, 5)
    assert blocks.nice_bar(200) == (20.0, 4)
    assert blocks.nice_bar(1000) == (100.0, 5)


def test_upright_never_reads_upside_down() -> None:
    assert [annotate.upright(a) for a in (0, 90, 180, 270, -90, 135)] == [0, 90, 0, 90, 90, -45]


def test_one_sheet_per_hall_plus_the_site_on_a1(doc: Any) -> None:
    names = doc.layouts.names_in_taborder()
    assert names == ["Model", "00 SITE", "B1-H1"]
    for name, kind in (("00 SITE", "site"), ("B1-H1", "hall")):
        layout = doc.paperspace(name)
        setup = layout.dxf_layout.dxf
        assert (setup.paper_width, setup.paper_height) == dxf.PAPER_A1_MM
        assert (setup.scale_numerator, setup.scale_denominator, setup.plot_type) == (1, 1, 5)
        assert setup.plot_layout_flags & 128  # lineweights are plotted
        (vp,) = [v for v in layout.viewports() if v.dxf.id > 1]
        scale = vp.dxf.view_height / vp.dxf.height
        assert round(scale) in dxf.STANDARD_SCALES and scale == pytest.approx(round(scale))
        assert vp.dxf.flags & ezdxf.const.VSF_LOCK_ZOOM
        assert vp.dxf.layer == "G-VPRT"
        frozen = set(vp.frozen_layers)
        assert frozen == set(dxf.OVERVIEW_ONLY_LAYERS if kind == "hall" else dxf.HALL_ONLY_LAYERS)


def test_title_block_takes_name_revision_and_date_from_the_site(doc: Any, inputs: Inputs) -> None:
    for name in ("00 SITE", "B1-H1"):
        (tb,) = doc.paperspace(name).query("INSERT[name=='G-TTLB-A1']")
        values = {a.dxf.tag: a.dxf.text for a in tb.attribs}
        assert sorted(values) == sorted(dxf.TITLE_FIELDS)
        assert values["TITLE"] == inputs.site.site.name
        assert (values["REV"], values["DATE"]) == ("C", "2026-03-14")
        assert values["SUMMARY"] == "GPUs: 192; racks: 7"  # the summary's figures with their labels, ASCII
        (title,) = [a for a in tb.attribs if a.dxf.tag == "TITLE"]
        assert title.dxf.height == 7.0  # "small test site" fits at full height
        assert values["SHEET"] == ("1 of 2" if name == "00 SITE" else "2 of 2")
        assert values["DWG_NO"] == ("SMALL-E-001" if name == "00 SITE" else "SMALL-E-002")
    assert [a.dxf.tag for a in doc.blocks.get("G-TTLB-A1").attdefs()] == list(dxf.TITLE_FIELDS)
    assert len(doc.paperspace("B1-H1").query("INSERT[name=='G-NORTH']")) == 1
    assert len(doc.paperspace("B1-H1").query("INSERT[name=='G-LEGEND']")) == 1
    (bar,) = (
        doc.paperspace("B1-H1")
        .query("INSERT[layer=='G-ANNO-SYMB']")
        .filter(lambda e: "SCALEBAR" in e.dxf.name)
    )
    assert bar.dxf.name == "G-SCALEBAR-1-20"  # the 10 x 6 m hall fits at 1:20


def test_sheet_notes_list_the_violations_with_their_messages(doc: Any) -> None:
    site_notes = [t.dxf.text for t in doc.paperspace("00 SITE").query("TEXT[layer=='G-ANNO-VIOL']")]
    assert "V4 capacity at site: 12 racks do not fit" in site_notes
    hall_notes = [t.dxf.text for t in doc.paperspace("B1-H1").query("TEXT[layer=='G-ANNO-VIOL']")]
    assert len(hall_notes) == 3 and not any("capacity" in n for n in hall_notes)


def test_legend_has_a_swatch_on_every_model_layer(doc: Any) -> None:
    blk = doc.blocks.get("G-LEGEND")
    swatch_layers = {e.dxf.layer for e in blk if e.dxf.layer != "0"}
    assert swatch_layers == {ly.name for ly in dxf.legend_layers()}
    # $LTSCALE is the hall scale (1:20 here); swatches in paper millimetres undo it
    assert doc.header["$LTSCALE"] == 20.0
    (duct,) = [e for e in blk if e.dxf.layer == "E-TRAY-DUCT"]
    assert duct.dxf.ltscale == pytest.approx(1 / 20)


# ------------------------------------------------------------------------------------------- files
def test_write_is_atomic_and_a_failure_leaves_nothing(
    scene: dxf.Scene, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "small.dxf"
    assert dxf.write_scene(scene, target) == target
    good = target.read_bytes()
    assert good.startswith(b"  0\nSECTION")

    def boom(_scene: dxf.Scene) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(document, "build_scene_document", boom)
    with pytest.raises(RuntimeError):
        dxf.write_scene(scene, target)
    assert target.read_bytes() == good  # the old file is untouched
    with pytest.raises(RuntimeError):
        dxf.write_scene(scene, tmp_path / "new.dxf")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.dxf"]  # no half file, no temp file


def test_aisle_dimension_keeps_clear_of_the_row_labels() -> None:
    """The dimension stands just past the row labels (600 mm long) at the rows' first racks: at 0.6 m,
    when a one-rack row (0-0.8 m) faces a long row and when both are long; midway when the rows overlap
    less than the labels' length."""
    doc = ezdxf.new("R2018", setup=False)
    rows = pd.DataFrame(
        {"row": ["B1/H1/R01", "B1/H1/R02"], "hall": ["B1/H1"] * 2, "axis": ["x", "x"], "x0_m": [0.0, 0.0],
         "y0_m": [1.0, 3.4], "x1_m": [0.8, 6.0], "y1_m": [1.0, 3.4], "front_sign": [1, -1], "depth_m": [1.2, 1.2]}
    )  # fmt: skip
    model.aisle_dims(doc.modelspace(), doc, rows, 100, 600.0, 3.6)
    (dim,) = doc.modelspace().query("DIMENSION")
    assert isinstance(dim, Dimension)
    assert dim.dxf.defpoint.x == pytest.approx(600.0)
    assert round(dim.get_measurement()) == 1200 and dim.dxf.text == "COLD <>"
    rows.loc[0, "x1_m"] = 6.0
    doc = ezdxf.new("R2018", setup=False)
    model.aisle_dims(doc.modelspace(), doc, rows, 100, 600.0, 3.6)
    (dim,) = doc.modelspace().query("DIMENSION")
    assert dim.dxf.defpoint.x == pytest.approx(600.0)
    rows.loc[0, "x1_m"] = 0.5
    doc = ezdxf.new("R2018", setup=False)
    model.aisle_dims(doc.modelspace(), doc, rows, 100, 600.0, 3.6)
    (dim,) = doc.modelspace().query("DIMENSION")
    assert dim.dxf.defpoint.x == pytest.approx(250.0)


def test_open_floor_between_rows_is_not_an_aisle() -> None:
    """Row lines 1.2 m apart get a dimension; 18 m apart (wider than three aisles) do not."""
    doc = ezdxf.new("R2018", setup=False)
    rows = pd.DataFrame(
        {"row": ["B1/H1/R01", "B1/H1/R02"], "hall": ["B1/H1"] * 2, "axis": ["y", "y"], "x0_m": [1.0, 20.2],
         "y0_m": [0.0, 0.0], "x1_m": [1.0, 20.2], "y1_m": [6.0, 6.0], "front_sign": [1, -1], "depth_m": [1.2, 1.2]}
    )  # fmt: skip
    model.aisle_dims(doc.modelspace(), doc, rows, 100, 600.0, 3.6)
    assert len(doc.modelspace().query("DIMENSION")) == 0
    rows.loc[1, ["x0_m", "x1_m"]] = 3.4
    model.aisle_dims(doc.modelspace(), doc, rows, 100, 600.0, 3.6)
    (dim,) = doc.modelspace().query("DIMENSION")
    assert isinstance(dim, Dimension)
    assert round(dim.get_measurement()) == 1200 and dim.dxf.angle == 0.0  # across the y-axis rows


def test_text_boxes_turned_a_quarter_are_the_general_rotation_s() -> None:
    from layout.export.labels import text_box

    for anchor in ("BOTTOM_LEFT", "MIDDLE_CENTER", "TOP_RIGHT"):
        quick = text_box("R01", (100.0, 50.0), 10.0, anchor, 90.0)
        general = text_box("R01", (100.0, 50.0), 10.0, anchor, 90.0 + 1e-9)
        assert quick == pytest.approx(general, abs=1e-6)
        assert text_box("R01", (0.0, 0.0), 10.0, anchor, 0.0) == pytest.approx(
            text_box("R01", (0.0, 0.0), 10.0, anchor, 1e-9), abs=1e-6
        )
    # 3 characters x 0.8 x 10 = 24 long: bottom-left at (100, 50), turned, runs up from x 90..100
    assert text_box("R01", (100.0, 50.0), 10.0, "BOTTOM_LEFT", 90.0) == pytest.approx(
        (90.0, 50.0, 100.0, 74.0)
    )


def test_a_hall_whose_ids_hold_dashes_gets_its_own_scale_violations_and_power_notes(
    make_inputs: Callable[..., Inputs],
) -> None:
    """Sheet names are BUILDING-HALL; with ids like B-1 and H-1 the name B-1-H-1 cannot be split back
    into the hall: each sheet carries its hall, and the annotation scale and the notes come from that."""
    from layout import design

    d = design.run(make_inputs({"building": {0: {"id": "B-1", "hall": {0: {"id": "H-1"}}}}}))
    scene = dxf.scene_of(d)
    sheets = dxf.plan_sheets(scene)
    by_name = {s.name: s for s in sheets}
    assert by_name["B-1-H-1"].hall == by_name["B-1-H-1-PWR"].hall == "B-1/H-1"
    assert Scales(scene, sheets).of("B-1/H-1/R01/K01") == by_name["B-1-H-1"].scale != sheets[0].scale
    doc = dxf.build_scene_document(scene).doc
    notes = [e.dxf.text for e in doc.paperspace("B-1-H-1-PWR").query("TEXT")]
    assert scene.busways is not None
    n = int((scene.busways["hall"] == "B-1/H-1").sum())
    assert n > 0 and any(t.startswith(f"3. Busways of B-1/H-1: {n},") for t in notes), notes
