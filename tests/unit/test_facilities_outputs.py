"""The power chain and the CDUs on every shipped site, and in the outputs: the XLSX Racks sheet's feeds,
the Power sheet, the BOM's power and cooling lines and the PDF's power chain (issue 16)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import openpyxl
import pytest
from pypdf import PdfReader

from layout.export import tables

ROOT = Path(__file__).resolve().parents[2]


def test_every_rack_of_every_shipped_site_has_two_feeds_from_different_ups_blocks(
    design_of: Callable[[str], Any], shipped_sites: list[str]
) -> None:
    for stem in shipped_sites:
        d = design_of(stem)
        f, bw = d.chain.feeds, d.chain.busways.set_index("busway_id")
        assert len(f) == len(d.placement.racks) and (f["rack_id"] == d.placement.racks["rack_id"]).all()
        assert (f["feed_a"] != "").all() and (f["feed_b"] != "").all(), stem
        ups_a = bw.loc[f["feed_a"], "ups_id"].to_numpy()
        ups_b = bw.loc[f["feed_b"], "ups_id"].to_numpy()
        assert (ups_a != ups_b).all(), stem
        # a feed is in its rack's row; each busway carries the kW of its racks (2N: each side alone)
        assert (bw.loc[f["feed_a"], "row"].to_numpy() == d.placement.racks["row"].to_numpy()).all()
        kw = np.bincount(
            np.unique(f["feed_a"], return_inverse=True)[1], d.power.rack_kw, minlength=f["feed_a"].nunique()
        )
        assert bw.loc[np.unique(f["feed_a"]), "load_kw"].to_numpy() == pytest.approx(kw, abs=1e-2)
        assert (bw["load_kw"] <= bw["rating_kw"] + 1e-6).all(), stem
        assert (f["tap_kw"].to_numpy() >= d.power.rack_kw - 1e-9).all(), stem
        ups = d.chain.ups
        assert (ups["load_mw"] <= ups["rating_mw"] + 1e-9).all(), stem
        assert not [v for v in d.violations if v.kind in ("feed", "cdu")], stem
        cats = set(d.bom["category"])
        assert "power" in cats, stem
        water = any(h.cooling in ("liquid", "rear-door") for _, h in d.inputs.site.halls())
        assert ("cooling" in cats) == water, stem  # CDUs, or rear-door heat exchangers
        power = d.bom[d.bom["category"] == "power"].set_index("part_id")
        assert int(power.loc[power.index.str.startswith("ups-"), "qty"].sum()) == len(ups)
        assert int(power.loc[power.index.str.startswith("swb-"), "qty"].sum()) == len(ups)
        assert int(power.loc[power.index.str.startswith("tap-"), "qty"].sum()) == 2 * len(f)
        runs = power.loc[power.index.str.startswith("bw-") & ~power.index.str.endswith("/m"), "qty"]
        assert int(runs.sum()) == len(bw)
        s = d.summary()["halls"]
        for r in d.chain.halls.itertuples():
            assert s[r.hall]["power_chain"]["ups_blocks"] == r.ups_blocks


def test_workbook_racks_have_feeds_and_a_power_sheet(tmp_path: Path, design_of: Callable[[str], Any]) -> None:
    d = design_of("superpod-4su")
    (path,) = tables.write_tables_of(d, tmp_path, xlsx=True)
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames == ["BOM", "Racks", "Links summary", "Ports", "Power", "Fibre cabinets", "Summary"]
    racks = list(wb["Racks"].values)
    head = list(racks[0])
    assert head[-2:] == ["feed_a", "feed_b"]
    assert [r[-2] for r in racks[1:]] == d.chain.feeds["feed_a"].tolist()
    assert [r[-1] for r in racks[1:]] == d.chain.feeds["feed_b"].tolist()
    power = list(wb["Power"].values)
    head = list(power[0])
    assert head == tables.POWER_COLUMNS
    col = {k: head.index(k) for k in head}
    parts = [r[0] for r in power[1:]]
    assert parts.count("busway") == len(d.chain.busways)
    assert parts.count("UPS block") == parts.count("switchboard") == len(d.chain.ups)
    assert parts.count("tap-off") == 2 * len(d.placement.racks)  # an A and a B box per rack
    by_id = {r[1]: r for r in power[1:]}
    for b in d.chain.busways.itertuples():
        row = by_id[b.busway_id]
        assert (row[col["rating_kw"]], row[col["load_kw"]]) == (b.rating_kw, b.load_kw)
        assert row[col["fed_from"]] == b.ups_id.replace("/UPS-", "/SWB-")  # its block's switchboard
        assert by_id[row[col["fed_from"]]][col["fed_from"]] == b.ups_id
    # by hand: R25/K01 draws 41.208 kW; in 2N each box carries it whole: 41,208 W / (sqrt(3) x 415 V x
    # 0.95) = 60.3 A, which a breaker carries within 80 % from 75.4 A: the 80 A frame. Its 630 A
    # busway carries 343.994 kW: 503.8 A, 629.8 A / 0.8: the 630 A frame, at 99.96 % of 452.8 x 0.8 x 0.95
    tap = by_id["B1/H1/R25/K01/TAP-A"]
    assert tap[col["load_kw"]] == pytest.approx(41.208, abs=1e-3)
    assert tap[col["current_a"]] == pytest.approx(41208 / (3**0.5 * 415 * 0.95), abs=0.05)
    assert (tap[col["breaker_a"]], tap[col["fed_from"]]) == ("80", d.chain.feeds["feed_a"].iat[0])
    bw = by_id["B1/H1/R25/A1"]
    assert (bw[col["current_a"]], bw[col["breaker_a"]]) == (pytest.approx(503.8, abs=0.05), "630")
    assert bw[col["use_of_limit"]] == pytest.approx(343.994 / (452.8 * 0.8 * 0.95), abs=1e-4)


def test_pdf_power_chapter_shows_the_chain_and_stranded_capacity(design_of: Callable[[str], Any]) -> None:
    from layout.export import pdf

    d = design_of("gb200-hall")
    text = " ".join(
        "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf.render_pdf(d))).pages).split()
    )
    assert "Power chain and stranded capacity" in text
    (h,) = d.chain.halls.itertuples()
    assert f"{h.ups_blocks} x {h.ups_model}" in text
    assert "Liquid cooling: CDUs" in text
    n = len(d.liquid.cdus)
    assert f"{n} x {d.liquid.cdus['model'].iat[0]}" in text
    assert "Power distribution" in text and "Subtotal cooling" in text
    # the single-line diagram: every UPS block and switchboard of the hall, its busways with the
    # schedule's figures (the most loaded of each switchboard are drawn)
    assert "Single-line diagrams" in text
    assert f"Utility / MV switchgear: hall B1/H1, blocks 1-4 of {h.ups_blocks}" in text
    sched = d.schedule
    for r in sched[sched["part"].isin(["UPS block", "switchboard"])].itertuples():
        assert r.part_id.rsplit("/", 1)[-1] in text, r.part_id
    for r in (
        sched[sched["part"] == "busway"].sort_values("use_of_limit", ascending=False).head(5).itertuples()
    ):
        name = r.part_id.split("/", 2)[-1]
        assert f"{name}: {r.load_kw:,.0f} of {r.rating_kw:,.0f} kW, {r.breaker_a} A" in text


def test_tui_shows_a_rack_s_feeds_and_the_chain_in_the_budgets(inputs_of: Callable[[str], Any]) -> None:
    from rich.console import Console

    from layout.tui.session import compute
    from layout.tui.widgets.inspector import feed_text

    inputs = inputs_of("superpod-4su")
    result = compute(inputs, "")
    d = result.design
    f = d.chain.feeds
    bw = d.chain.busways.set_index("busway_id")
    a, b = f["feed_a"].iat[0], f["feed_b"].iat[0]
    hall = d.placement.racks["hall"].iat[0] + "/"
    want = (
        f"A {a.removeprefix(hall)} < {bw.loc[a, 'ups_id'].removeprefix(hall)}, "
        f"B {b.removeprefix(hall)} < {bw.loc[b, 'ups_id'].removeprefix(hall)}; "
        f"{f['tap_off'].iat[0]} {f['tap_kw'].iat[0]:g} kW"
    )
    assert feed_text(d, 0) == want
    console = Console(width=100, record=True)
    console.print(result.budgets)
    text = console.export_text()
    assert "Power chain (IT / UPS with redundancy)" in text
    (h,) = d.chain.halls.itertuples()
    assert f"{h.hall} 2N {h.ups_blocks}x{h.ups_model}" in text
    assert f"{h.it_mw:,.2f}/{h.chain_mw:,.2f} MW" in text
    assert "Halls (heat / cooling)" in text


def test_dxf_has_a_power_sheet_per_hall_and_cdus_on_their_layer(design_of: Callable[[str], Any]) -> None:
    from layout.export import dxf

    d = design_of("gb200-hall")
    doc = dxf.build_scene_document(dxf.scene_of(d)).doc
    assert doc.layouts.names_in_taborder() == ["Model", "00 SITE", "B1-H1", "B1-H1-PWR", "B1-H1-SLD"]
    assert not doc.audit().errors
    msp = doc.modelspace()
    lines = msp.query('LWPOLYLINE[layer=="E-POWR"]')
    assert len(lines) == len(d.chain.busways)
    boxes = msp.query('LWPOLYLINE[layer=="M-EQPM-CDU"]')
    assert len(boxes) == int(d.liquid.cdus["placed"].sum())
    (vp,) = [e for e in doc.paperspace("B1-H1-PWR").query("VIEWPORT") if e.dxf.id > 1]
    assert "E-TRAY" in vp.frozen_layers and "E-POWR" not in vp.frozen_layers
    (hall_vp,) = [e for e in doc.paperspace("B1-H1").query("VIEWPORT") if e.dxf.id > 1]
    assert "E-TRAY" not in hall_vp.frozen_layers
    notes = " ".join(t.dxf.text for t in doc.paperspace("B1-H1-PWR").query("TEXT"))
    assert f"UPS blocks of B1/H1: {len(d.chain.ups)}" in notes
    assert f"Busways of B1/H1: {len(d.chain.busways)}, by model:" in notes
    assert f"CDUs (layer M-EQPM-CDU): {int(d.liquid.cdus['placed'].sum())}" in notes


def _gb200_hall_without_its_gallery(tmp_path: Path) -> Any:
    """gb200-hall with its CDU gallery taken out: its CDUs go to row ends, where there is room."""
    from layout import design
    from layout.load import load_site

    text = (ROOT / "sites" / "gb200-hall.toml").read_text(encoding="utf-8")
    gallery = 'keepouts = [{ polygon = [[2, 30], [12, 30], [12, 38], [2, 38]], reason = "CDU gallery" }]'
    assert gallery in text
    site = tmp_path / "gb200-no-gallery.toml"
    site.write_text(text.replace(gallery, ""), encoding="utf-8")
    return design.run(load_site(site))


@pytest.mark.parametrize("stem", ["gb200-hall", "gb300-spectrum-x", "gb200-hall without its gallery"])
def test_no_cdu_stands_in_an_aisle_read_from_the_dxf_and_the_xlsx(
    stem: str, tmp_path: Path, design_of: Callable[[str], Any]
) -> None:
    """Issue 27: the CDU boxes as drawn (DXF layer M-EQPM-CDU, read back by ezdxf) against every rack's
    front and back aisle as the XLSX Racks sheet gives the racks (openpyxl), with this test's own
    geometry: no CDU takes floor from a cold or hot aisle, a column or another CDU."""
    import shapely

    from layout.export import dxf

    d = _gb200_hall_without_its_gallery(tmp_path) if " " in stem else design_of(stem)
    doc = dxf.build_scene_document(dxf.scene_of(d)).doc
    assert doc.header["$INSUNITS"] == 4  # millimetres
    cdu_boxes = [
        shapely.box(*np.r_[np.min(p, 0), np.max(p, 0)] / 1000.0)
        for p in (
            np.array([v[:2] for v in e.get_points()])
            for e in doc.modelspace().query('LWPOLYLINE[layer=="M-EQPM-CDU"]')
        )
    ]
    assert len(cdu_boxes) == int(d.liquid.cdus["placed"].sum()) > 0
    (path,) = tables.write_tables_of(d, tmp_path, xlsx=True)
    ws = openpyxl.load_workbook(path, read_only=True)["Racks"]
    rows = ws.iter_rows(values_only=True)
    head = list(next(rows))
    col = {k: head.index(k) for k in ("hall", "x_m", "y_m", "width_m", "depth_m", "rotation_deg")}
    halls = {f"{b.id}/{h.id}": h for b, h in d.inputs.site.halls()}
    aisles, footprints = [], []
    for r in rows:
        h = halls[r[col["hall"]]]
        x, y, w, dep, rot = (float(r[col[k]]) for k in ("x_m", "y_m", "width_m", "depth_m", "rotation_deg"))
        assert rot in (0.0, 180.0)  # rows along x on these sites
        front = 1.0 if rot == 0.0 else -1.0  # fronts face +y at 0 degrees
        footprints.append((x - w / 2, y - dep / 2, x + w / 2, y + dep / 2))
        for sign, depth in ((front, h.cold_aisle_m), (-front, h.hot_aisle_m)):
            edge = y + sign * dep / 2
            aisles.append(
                shapely.box(
                    x - w / 2, min(edge, edge + sign * depth), x + w / 2, max(edge, edge + sign * depth)
                )
            )
    columns = [
        shapely.box(
            c.at[0] - c.size_m[0] / 2,
            c.at[1] - c.size_m[1] / 2,
            c.at[0] + c.size_m[0] / 2,
            c.at[1] + c.size_m[1] / 2,
        )
        for _, h in d.inputs.site.halls()
        for c in h.columns
    ]
    cross = {h.cross_aisle_m for _, h in d.inputs.site.halls()}.pop()
    fp = np.array(footprints)
    for i, box in enumerate(cdu_boxes):
        for other in aisles + columns + cdu_boxes[i + 1 :]:
            assert box.intersection(other).area < 1e-6, (stem, box.bounds, other.bounds)
        # along its line: against the racks beside it (touching a row end), or a cross aisle clear
        x0, y0, x1, y1 = box.bounds
        line = (fp[:, 1] < y1 - 1e-6) & (fp[:, 3] > y0 + 1e-6)
        for gaps in (fp[line, 0] - x1, x0 - fp[line, 2]):  # to the racks on its right, on its left
            gaps = gaps[gaps > -1e-6]
            if len(gaps):
                assert gaps.min() < 1e-6 or gaps.min() >= cross - 1e-6, (stem, box.bounds, gaps.min())
