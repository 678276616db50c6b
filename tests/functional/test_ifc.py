"""`dclayout design --ifc`: the IFC4 model, read back by ifcopenshell (PyPI, the ``[bim]`` extra): it passes
ifcopenshell's schema validation with the EXPRESS rules, and every rack (position, turn, properties,
body), column, keep-out, tray segment, busway and CDU is there as the design has it."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ifcopenshell = pytest.importorskip(
    "ifcopenshell", reason="ifcopenshell (PyPI, dclayout[bim]) is not installed"
)


@pytest.fixture(scope="module")
def written(
    design_of: Callable[[str], Any], tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], Any]:
    """``written(stem)``: (design, the path of its STEM.ifc, the file as ifcopenshell opens it)."""
    from layout.export.ifc import write_ifc
    from layout.scene import scene_of

    done: dict[str, Any] = {}

    def get(stem: str) -> Any:
        if stem not in done:
            design = design_of(stem)
            path = write_ifc(design, tmp_path_factory.mktemp("ifc") / f"{stem}.ifc", scene_of(design))
            done[stem] = (design, path, ifcopenshell.open(str(path)))
        return done[stem]

    return get


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall"])
def test_the_schema_validation_passes(stem: str, written: Callable[[str], Any]) -> None:
    import ifcopenshell.validate

    _, _, model = written(stem)
    log = ifcopenshell.validate.json_logger()
    ifcopenshell.validate.validate(model, log, express_rules=True)
    assert log.statements == []
    assert model.schema == "IFC4"


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall"])
def test_every_rack_where_the_design_puts_it(stem: str, written: Callable[[str], Any]) -> None:
    import ifcopenshell.util.element
    import ifcopenshell.util.placement

    design, _, model = written(stem)
    racks = design.placement.racks
    found = {r.Name: r for r in model.by_type("IfcFurniture") if r.ObjectType == "Rack"}
    assert len(found) == len(racks)
    area = racks["width_m"].to_numpy(float) * racks["depth_m"].to_numpy(float)
    weight = design.power.rack_floor_kg_m2 * area
    for i, r in enumerate(racks.to_dict("records")):
        rack = found[r["rack_id"]]
        matrix = ifcopenshell.util.placement.get_local_placement(rack.ObjectPlacement)
        assert matrix[0, 3] == pytest.approx(r["x_m"], abs=1e-9)
        assert matrix[1, 3] == pytest.approx(r["y_m"], abs=1e-9)
        assert matrix[2, 3] == 0.0
        a = math.radians(r["rotation_deg"])
        assert matrix[:2, 0] == pytest.approx([math.cos(a), math.sin(a)], abs=1e-9)
        props = ifcopenshell.util.element.get_psets(rack)["Pset_dclayout"]
        assert props["rack_id"] == r["rack_id"] and props["template"] == r["template"]
        assert props["power_kw"] == pytest.approx(design.power.rack_kw[i], abs=1e-9)
        assert props["heat_kw"] == props["power_kw"]
        assert props["weight_kg"] == pytest.approx(weight[i], abs=1e-9)
        assert (rack.PredefinedType, rack.ObjectType) == ("USERDEFINED", "Rack")
    hall_of = {rel.RelatingStructure.Name for r in found.values() for rel in r.ContainedInStructure}
    assert hall_of == set(racks["hall"])  # each rack in its hall's space
    print(f"{stem}: ifcopenshell read {len(found)} racks at the design's positions")


def test_rack_bodies_stand_on_their_footprints(written: Callable[[str], Any]) -> None:
    """ifcopenshell's geometry engine builds every rack: its box is the rack's footprint, turned."""
    import ifcopenshell.geom

    design, _, model = written("superpod-4su")
    settings = ifcopenshell.geom.settings()
    settings.set("use-world-coords", True)
    found = {r.Name: r for r in model.by_type("IfcFurniture")}
    for r in design.placement.racks.to_dict("records"):
        verts = np.array(ifcopenshell.geom.create_shape(settings, found[r["rack_id"]]).geometry.verts)
        lo, hi = verts.reshape(-1, 3).min(axis=0), verts.reshape(-1, 3).max(axis=0)
        quarter = round(r["rotation_deg"]) % 180 == 90
        w, d = (r["depth_m"], r["width_m"]) if quarter else (r["width_m"], r["depth_m"])
        assert (hi[0] - lo[0], hi[1] - lo[1]) == pytest.approx((w, d), abs=1e-6)
        assert ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2) == pytest.approx((r["x_m"], r["y_m"]), abs=1e-6)
        assert lo[2] == pytest.approx(0.0, abs=1e-9) and 1.5 < hi[2] < 2.6


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall"])
def test_the_building_trays_busways_and_cdus(stem: str, written: Callable[[str], Any]) -> None:
    import ifcopenshell.util.element

    design, _, model = written(stem)
    site = design.inputs.site
    halls = [h for _, h in site.halls()]
    assert len(model.by_type("IfcSite")) == 1
    assert len(model.by_type("IfcBuilding")) == len(model.by_type("IfcBuildingStorey")) == len(site.building)
    spaces = model.by_type("IfcSpace")
    assert sorted(s.CompositionType for s in spaces) == sorted(
        ["ELEMENT"] * len(halls) + ["PARTIAL"] * sum(len(h.keepouts) for h in halls)
    )
    assert len(model.by_type("IfcColumn")) == sum(len(h.columns) for h in halls)
    trays = model.by_type("IfcCableCarrierSegment")
    edges = design.cabling.trays.edges
    assert len(trays) == len(edges)
    lengths = sorted(ifcopenshell.util.element.get_psets(t)["Pset_dclayout"]["length_m"] for t in trays)
    assert lengths == pytest.approx(sorted(edges["length_m"].astype(float)))
    assert {t.PredefinedType for t in trays} == {"CABLETRAYSEGMENT"}
    assert len(model.by_type("IfcCableSegment")) == len(design.chain.busways)
    placed = design.liquid.cdus["placed"].astype(bool).sum() if len(design.liquid.cdus) else 0
    assert len(model.by_type("IfcUnitaryEquipment")) == placed
    # the cable plant's fibre cabinets where the design puts them, with their location and floor run
    import ifcopenshell.util.placement

    cab = design.cabling.plant.cabinets
    fibre = {u.Name: u for u in model.by_type("IfcFurniture") if u.ObjectType == "Fibre cabinet"}
    assert set(fibre) == set(cab["cabinet_id"]) and len(fibre) > 0
    for c in cab.to_dict("records"):
        u = fibre[c["cabinet_id"]]
        matrix = ifcopenshell.util.placement.get_local_placement(u.ObjectPlacement)
        assert (matrix[0, 3], matrix[1, 3]) == pytest.approx((c["x_m"], c["y_m"]), abs=1e-9)
        props = ifcopenshell.util.element.get_psets(u)["Pset_dclayout"]
        assert props["location"] == design.placement.racks["rack_id"].iat[c["rack"]]
        assert props["run_m"] == pytest.approx(c["run_m"])
    (units,) = model.by_type("IfcUnitAssignment")
    assert any(u.UnitType == "LENGTHUNIT" and u.Name == "METRE" and u.Prefix is None for u in units.Units)
    print(f"{stem}: ifcopenshell read {len(trays)} tray segments, {len(spaces)} spaces")


def test_same_design_same_bytes(design_of: Callable[[str], Any], tmp_path: Path) -> None:
    from layout.export.ifc import write_ifc
    from layout.scene import scene_of

    design = design_of("superpod-4su")
    a = write_ifc(design, tmp_path / "a.ifc", scene_of(design)).read_bytes()
    b = write_ifc(design, tmp_path / "b.ifc", scene_of(design)).read_bytes()
    assert a == b
    assert b"2026-11-29T00:00:00" in a  # the site's date, not the clock


def test_the_cli_writes_it(dclayout: Any, tmp_path: Path) -> None:
    done = dclayout("design", "sites/superpod-4su.toml", "--no-svg", "--ifc", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json", "superpod-4su.ifc"]


def test_a_site_with_geo_is_georeferenced(tmp_path: Path) -> None:
    """[geo]: the site's latitude, longitude and elevation on IfcSite, true north on the context and,
    with a map grid, an IfcMapConversion onto it; read back by ifcopenshell (its georeference utility
    too) and passing its schema validation."""
    import ifcopenshell.util.geolocation as geoloc
    import ifcopenshell.validate

    from layout import design
    from layout.export.ifc import compound_angle, write_ifc
    from layout.load import load_site
    from layout.scene import scene_of

    root = Path(__file__).resolve().parents[2]
    site = tmp_path / "superpod-4su.toml"
    site.write_text(
        (root / "sites" / "superpod-4su.toml").read_text()
        + "\n[geo]\nlatitude_deg = 50.110924\nlongitude_deg = -8.682127\nelevation_m = 112.5\nnorth_deg = 30.0\n"
        'crs = "EPSG:32632"\neastings_m = 476234.5\nnorthings_m = 5551012.25\n'
    )
    d = design.run(load_site(site))
    model = ifcopenshell.open(str(write_ifc(d, tmp_path / "g.ifc", scene_of(d))))
    log = ifcopenshell.validate.json_logger()
    ifcopenshell.validate.validate(model, log, express_rules=True)
    assert log.statements == []
    s = model.by_type("IfcSite")[0]
    # 50.110924 deg = 50 deg 6 min 39.3264 s; a negative angle has every part negative
    assert tuple(s.RefLatitude) == (50, 6, 39, 326400) == compound_angle(50.110924)
    assert tuple(s.RefLongitude) == (-8, -40, -55, -657200)
    assert geoloc.dms2dd(*s.RefLatitude) == pytest.approx(50.110924, abs=1e-9)
    assert s.RefElevation == 112.5
    north = model.by_type("IfcGeometricRepresentationContext")[0].TrueNorth.DirectionRatios
    # +y points 30 deg east of north: north is 30 deg to the left of +y
    assert north[0] == pytest.approx(-0.5) and north[1] == pytest.approx(math.sqrt(3) / 2)
    conv = model.by_type("IfcMapConversion")[0]
    assert conv.TargetCRS.Name == "EPSG:32632"
    assert (conv.Eastings, conv.Northings, conv.OrthogonalHeight) == (476234.5, 5551012.25, 112.5)
    assert conv.XAxisAbscissa == pytest.approx(math.sqrt(3) / 2) and conv.XAxisOrdinate == pytest.approx(-0.5)
    # a rack's site position goes onto the grid as the conversion says
    rack = d.placement.racks.iloc[0]
    e, n, _ = geoloc.local2global(
        np.array([[1, 0, 0, rack.x_m], [0, 1, 0, rack.y_m], [0, 0, 1, 0], [0, 0, 0, 1]]),
        conv.Eastings,
        conv.Northings,
        conv.OrthogonalHeight,
        conv.XAxisAbscissa,
        conv.XAxisOrdinate,
        1.0,
    )[:3, 3]
    a = math.radians(30.0)
    assert e == pytest.approx(476234.5 + rack.x_m * math.cos(a) + rack.y_m * math.sin(a))
    assert n == pytest.approx(5551012.25 - rack.x_m * math.sin(a) + rack.y_m * math.cos(a))
