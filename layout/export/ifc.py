"""The design as a BIM model: ``STEM.ifc`` (IFC4, metres), written with ifcopenshell (the ``[bim]`` extra).

What Revit and other BIM tools import, in site coordinates (x east, y north, z up from the hall floor;
the site sits at the origin; without a ``[geo]`` table the model's true north is +y and it has no
geodetic anchor. With ``[geo]`` the site carries its latitude, longitude and elevation (``IfcSite``), the
context its true north, and with ``geo.crs`` an ``IfcMapConversion`` onto that national grid (its
``IfcProjectedCRS``) at the origin's eastings and northings):

- ``IfcProject`` > ``IfcSite`` > one ``IfcBuilding`` per building > one
  ``IfcBuildingStorey`` (the ground floor) > one ``IfcSpace`` per hall (its polygon, as high as its
  trays plus 0.6 m); each keep-out an ``IfcSpace`` of the hall (composition ``PARTIAL``, its reason the
  long name);
- racks: ``IfcFurniture`` (``USERDEFINED`` "Rack") in their hall, a box of the rack's footprint and
  height (its RU x 44.45 mm) turned as it stands, with ``Pset_dclayout``: ``rack_id``, ``template``,
  ``kind``, ``servers``, ``power_kw``, ``heat_kw``, ``weight_kg``; columns: ``IfcColumn``;
- every tray segment an ``IfcCableCarrierSegment`` (``CABLETRAYSEGMENT``) from node to node at its
  elevation (risers upright), width x depth, with its kind, place, length, cables and fill;
- busways: ``IfcCableSegment`` (``BUSBARSEGMENT``) along their racks, 0.4 m under the trays, with rating
  and load; CDUs: ``IfcUnitaryEquipment`` (``USERDEFINED`` "CDU") with rating and load; the cable
  plant's fibre cabinets: ``IfcFurniture`` (``USERDEFINED`` "Fibre cabinet", 42U high) with their id,
  panel location and floor run.

Every GlobalId is derived from the site file's stem and the object's id (UUID 5), the header's time stamp
is the site's date: the same design gives the same bytes.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from layout.export.atomic import atomic_path

if TYPE_CHECKING:
    from layout.design import Design
    from layout.scene import Scene

RU_M = 0.04445  # one rack unit, EIA-310
SPACE_ABOVE_TRAYS_M = 0.6  # a hall space's height above its trays
BUSWAY_BELOW_TRAYS_M = 0.4  # busways run this far under the trays
BUSWAY_SIDE_M = 0.15  # a busway's cross-section, square
CDU_HEIGHT_M = 2.0  # a CDU cabinet's height (the catalog gives its footprint only)
FIBRE_CABINET_RU = 42  # a fibre cabinet's height in U (the catalog's cabinet_ru panels of 1U)
GUID_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "dclayout/ifc")


class _Model:
    """An IFC4 file being built: its context and the entity helpers."""

    def __init__(self, design: Design) -> None:
        try:
            import ifcopenshell
            import ifcopenshell.guid
        except ImportError as e:
            raise ModuleNotFoundError("--ifc needs ifcopenshell: pip install 'dclayout[bim]'") from e

        from layout import __version__

        self.stem = design.inputs.stem
        self.f = ifcopenshell.file(schema="IFC4")
        self._compress = ifcopenshell.guid.compress
        site = design.inputs.site.site
        head = self.f.header.file_name
        head.name = f"{self.stem}.ifc"
        head.time_stamp = f"{site.date}T00:00:00"
        head.originating_system = f"dclayout {__version__}"
        f = self.f
        self.origin = f.createIfcAxis2Placement3D(f.createIfcCartesianPoint((0.0, 0.0, 0.0)), None, None)
        geo = design.inputs.site.geo
        north = (0.0, 1.0) if geo is None else true_north(geo.north_deg)
        self.context = f.createIfcGeometricRepresentationContext(
            None, "Model", 3, 1.0e-5, self.origin, f.createIfcDirection(north)
        )
        if geo is not None and geo.crs is not None:
            # the site's origin on the national grid: its +x axis as the grid sees it (grid
            # convergence, a fraction of a degree, is not applied) and the hall floor's height
            crs = f.createIfcProjectedCRS(geo.crs, None, None, None, None, None, None)
            a = math.radians(geo.north_deg)
            f.createIfcMapConversion(
                self.context, crs, geo.eastings_m, geo.northings_m, geo.elevation_m,
                math.cos(a), -math.sin(a), 1.0,
            )  # fmt: skip
        self.body = f.createIfcGeometricRepresentationSubContext(
            "Body", "Model", None, None, None, None, self.context, None, "MODEL_VIEW", None
        )
        units = [
            f.createIfcSIUnit(None, "LENGTHUNIT", None, "METRE"),
            f.createIfcSIUnit(None, "AREAUNIT", None, "SQUARE_METRE"),
            f.createIfcSIUnit(None, "VOLUMEUNIT", None, "CUBIC_METRE"),
            f.createIfcSIUnit(None, "PLANEANGLEUNIT", None, "RADIAN"),
            f.createIfcSIUnit(None, "MASSUNIT", "KILO", "GRAM"),
        ]
        self.project = f.createIfcProject(
            self.guid("project"), None, site.name, f"revision {site.revision}", None, None, None,
            [self.context], f.createIfcUnitAssignment(units),
        )  # fmt: skip

    def guid(self, key: str) -> str:
        return str(self._compress(uuid.uuid5(GUID_NAMESPACE, f"{self.stem}/{key}").hex))

    def placement(
        self, at: tuple[float, float, float], relative: Any = None, axis: Any = None, ref: Any = None
    ) -> Any:
        f = self.f
        point = f.createIfcCartesianPoint(tuple(float(v) for v in at))
        z = f.createIfcDirection(tuple(float(v) for v in axis)) if axis is not None else None
        x = f.createIfcDirection(tuple(float(v) for v in ref)) if ref is not None else None
        return f.createIfcLocalPlacement(relative, f.createIfcAxis2Placement3D(point, z, x))

    def extruded(self, profile: Any, depth: float) -> Any:
        """A body representation: ``profile`` extruded along local z by ``depth``."""
        f = self.f
        solid = f.createIfcExtrudedAreaSolid(
            profile, self.origin, f.createIfcDirection((0.0, 0.0, 1.0)), depth
        )
        shape = f.createIfcShapeRepresentation(self.body, "Body", "SweptSolid", [solid])
        return f.createIfcProductDefinitionShape(None, None, [shape])

    def box(self, x_dim: float, y_dim: float, height: float) -> Any:
        """A box centred on the local origin in x and y, standing on it."""
        f = self.f
        centre = f.createIfcAxis2Placement2D(f.createIfcCartesianPoint((0.0, 0.0)), None)
        profile = f.createIfcRectangleProfileDef("AREA", None, centre, float(x_dim), float(y_dim))
        return self.extruded(profile, float(height))

    def prism(self, ring: list[tuple[float, float]], height: float) -> Any:
        """The closed polygon ``ring`` (local x, y) extruded up by ``height``."""
        f = self.f
        points = [f.createIfcCartesianPoint((float(x), float(y))) for x, y in ring]
        if ring[0] != ring[-1]:
            points.append(points[0])
        profile = f.createIfcArbitraryClosedProfileDef("AREA", None, f.createIfcPolyline(points))
        return self.extruded(profile, float(height))

    def pset(self, product: Any, key: str, values: dict[str, Any]) -> None:
        """``Pset_dclayout`` on ``product``: text as IfcLabel, whole numbers as IfcInteger, others IfcReal."""
        f = self.f
        props = []
        for name, v in values.items():
            if isinstance(v, bool | np.bool_):
                value = f.createIfcBoolean(bool(v))
            elif isinstance(v, int | np.integer):
                value = f.createIfcInteger(int(v))
            elif isinstance(v, float | np.floating):
                value = f.createIfcReal(float(v))
            else:
                value = f.createIfcLabel(str(v))
            props.append(f.createIfcPropertySingleValue(name, None, value, None))
        pset = f.createIfcPropertySet(self.guid(f"pset/{key}"), None, "Pset_dclayout", None, props)
        f.createIfcRelDefinesByProperties(self.guid(f"defines/{key}"), None, None, None, [product], pset)

    def aggregate(self, key: str, whole: Any, parts: list[Any]) -> None:
        if parts:
            self.f.createIfcRelAggregates(self.guid(f"aggregates/{key}"), None, None, None, whole, parts)

    def contain(self, key: str, where: Any, elements: list[Any]) -> None:
        if elements:
            self.f.createIfcRelContainedInSpatialStructure(
                self.guid(f"contains/{key}"), None, None, None, elements, where
            )


def true_north(north_deg: float) -> tuple[float, float]:
    """True north in site coordinates, when the site's +y axis points ``north_deg`` clockwise from it."""
    a = math.radians(north_deg)
    return (round(-math.sin(a), 12) + 0.0, round(math.cos(a), 12) + 0.0)


def compound_angle(deg: float) -> tuple[int, int, int, int]:
    """An angle in degrees as IFC's compound plane angle: degrees, minutes, seconds and millionths of a
    second, every part with the angle's sign."""
    sign = -1 if deg < 0 else 1
    micro = round(abs(deg) * 3600 * 1_000_000)
    d, rest = divmod(micro, 3600 * 1_000_000)
    mi, rest = divmod(rest, 60 * 1_000_000)
    se, mic = divmod(rest, 1_000_000)
    return (sign * d, sign * mi, sign * se, sign * mic)


def _segment_axes(p0: np.ndarray, p1: np.ndarray) -> tuple[list[float], list[float], float]:
    """Local z along p0 -> p1, local x upwards (across a riser: east), and the length."""
    d = p1 - p0
    length = float(np.linalg.norm(d))
    z = d / length
    up = np.array([0.0, 0.0, 1.0])
    x = up - z * float(up @ z)
    x = np.array([1.0, 0.0, 0.0]) if np.linalg.norm(x) < 1e-6 else x / np.linalg.norm(x)
    return [round(float(v), 12) for v in z], [round(float(v), 12) for v in x], length


def _run(
    m: _Model, p0: np.ndarray, p1: np.ndarray, relative: Any, across: float, up: float
) -> tuple[Any, Any]:
    """(placement, body) of a straight run from p0 to p1, ``up`` high and ``across`` wide; (None, None)
    when its ends meet."""
    if float(np.linalg.norm(p1 - p0)) <= 1e-6:
        return None, None
    z, x, length = _segment_axes(p0, p1)
    return m.placement(tuple(p0), relative, z, x), m.box(up, across, length)


def _turned(m: _Model, x: float, y: float, rotation_deg: float, relative: Any) -> Any:
    """A placement on the floor at (x, y), its local x (the rack's width) turned by ``rotation_deg``."""
    a = math.radians(rotation_deg)
    ref = (round(math.cos(a), 12), round(math.sin(a), 12), 0.0)
    return m.placement((x, y, 0.0), relative, (0.0, 0.0, 1.0), ref)


class _Spatial:
    """The site, its buildings, their storeys and the halls' spaces, with what each contains."""

    def __init__(self, m: _Model, design: Design) -> None:
        f = m.f
        site_in = design.inputs.site
        nodes = design.cabling.trays.nodes
        tray_z = (
            {str(h): float(z) for h, z in nodes.groupby("hall")["z_m"].max().items()} if len(nodes) else {}
        )
        self.site_place = m.placement((0.0, 0.0, 0.0))
        geo = site_in.geo
        lat = lon = None
        if geo is not None:
            lat, lon = compound_angle(geo.latitude_deg), compound_angle(geo.longitude_deg)
        self.site = f.createIfcSite(
            m.guid("site"), None, site_in.site.name, None, None, self.site_place, None, None, "ELEMENT",
            lat, lon, geo.elevation_m if geo is not None else 0.0, None, None,
        )  # fmt: skip
        m.aggregate("project", m.project, [self.site])
        self.storeys: dict[str, Any] = {}
        self.spaces: dict[str, tuple[Any, Any, float]] = {}  # hall: space, its placement, its height
        self.contents: dict[Any, list[Any]] = {}
        buildings = []
        for b in site_in.building:
            bplace = m.placement((0.0, 0.0, 0.0), self.site_place)
            building = f.createIfcBuilding(
                m.guid(f"building/{b.id}"), None, b.id, None, None, bplace, None, None, "ELEMENT",
                None, None, None,
            )  # fmt: skip
            buildings.append(building)
            splace = m.placement((0.0, 0.0, 0.0), bplace)
            storey = f.createIfcBuildingStorey(
                m.guid(f"storey/{b.id}"), None, f"{b.id} ground floor", None, None, splace, None, None,
                "ELEMENT", 0.0,
            )  # fmt: skip
            m.aggregate(f"building/{b.id}", building, [storey])
            self.storeys[b.id] = storey
            halls = []
            for h in b.hall:
                key = f"{b.id}/{h.id}"
                height = max(tray_z.get(key, h.tray.height_m), h.tray.height_m) + SPACE_ABOVE_TRAYS_M
                hplace = m.placement((0.0, 0.0, 0.0), splace)
                space = f.createIfcSpace(
                    m.guid(f"space/{key}"), None, key, None, None, hplace, m.prism(list(h.polygon), height),
                    f"hall {h.id}", "ELEMENT", "INTERNAL", None,
                )  # fmt: skip
                m.pset(
                    space, f"space/{key}", {"hall": key, "cooling": h.cooling, "max_rack_kw": h.max_rack_kw}
                )
                self.spaces[key] = (space, hplace, height)
                halls.append(space)
                keepouts = [
                    f.createIfcSpace(
                        m.guid(f"keepout/{key}/{i}"), None, f"{key} keep-out {i}", None, "keep-out",
                        m.placement((0.0, 0.0, 0.0), hplace), m.prism(list(k.polygon), height),
                        k.reason or "keep-out", "PARTIAL", "INTERNAL", None,
                    )
                    for i, k in enumerate(h.keepouts, start=1)
                ]  # fmt: skip
                m.aggregate(f"space/{key}", space, keepouts)
                for i, c in enumerate(h.columns, start=1):
                    column = f.createIfcColumn(
                        m.guid(f"column/{key}/{i}"), None, f"{key} column {i}", None, None,
                        m.placement((c.at[0], c.at[1], 0.0), splace), m.box(c.size_m[0], c.size_m[1], height),
                        None, "COLUMN",
                    )  # fmt: skip
                    self.contents.setdefault(storey, []).append(column)
            m.aggregate(f"storey/{b.id}", storey, halls)
        m.aggregate("site", self.site, buildings)

    def holder(self, hall: str, kind: str = "") -> Any:
        """Where a thing of ``hall`` is contained: the hall's space (trunks and risers: its building's
        storey; campus ducts: the site)."""
        if hall in self.spaces and kind not in ("trunk", "riser"):
            return self.spaces[hall][0]
        return self.storeys.get(hall.split("/")[0], self.site)

    def add(self, hall: str, element: Any, kind: str = "") -> None:
        self.contents.setdefault(self.holder(hall, kind), []).append(element)

    def contain_all(self, m: _Model) -> None:
        for holder, elements in self.contents.items():
            m.contain(str(holder.GlobalId), holder, elements)


def build(design: Design, scene: Scene) -> Any:
    """The IFC4 model (an ``ifcopenshell.file``) of ``design``, drawn from its ``scene``."""
    m = _Model(design)
    f = m.f
    where = _Spatial(m, design)
    for r in scene.racks.to_dict("records"):
        hall = str(r["hall"])
        tpl = design.inputs.templates.get(str(r["template"]))
        height = (tpl.height_ru if tpl is not None else 42) * RU_M
        rack = f.createIfcFurniture(
            m.guid(f"rack/{r['rack_id']}"), None, str(r["rack_id"]), None, "Rack",
            _turned(m, float(r["x_m"]), float(r["y_m"]), float(r["rotation_deg"]), where.spaces[hall][1]),
            m.box(float(r["width_m"]), float(r["depth_m"]), height), str(r["label"]), "USERDEFINED",
        )  # fmt: skip
        m.pset(rack, f"rack/{r['rack_id']}", rack_properties(design, r))
        where.add(hall, rack)

    trays = design.cabling.trays
    xyz = trays.nodes[["x_m", "y_m", "z_m"]].to_numpy(float)
    fill = design.cabling.edge_fill
    for i, e in enumerate(trays.edges.to_dict("records")):
        at, body = _run(m, xyz[int(e["u"])], xyz[int(e["v"])], where.site_place, e["width_mm"] / 1000.0,
                        e["depth_mm"] / 1000.0)  # fmt: skip
        tray = f.createIfcCableCarrierSegment(
            m.guid(f"tray/{i}"), None, f"tray {i} {e['kind']} {e['where']}", None, str(e["kind"]), at, body,
            None, "CABLETRAYSEGMENT",
        )  # fmt: skip
        m.pset(tray, f"tray/{i}", {
            "edge": i, "kind": str(e["kind"]), "hall": str(e["hall"]), "where": str(e["where"]),
            "length_m": float(e["length_m"]), "width_mm": float(e["width_mm"]),
            "depth_mm": float(e["depth_mm"]), "cables": int(fill["cables"].iloc[i]),
            "fill": float(fill["fill"].iloc[i]),
        })  # fmt: skip
        where.add(str(e["hall"]), tray, str(e["kind"]))

    for bw in [] if scene.busways is None else scene.busways.to_dict("records"):
        hall = str(bw["hall"])
        _, hplace, height = where.spaces[hall]
        elevation = height - SPACE_ABOVE_TRAYS_M - BUSWAY_BELOW_TRAYS_M
        p0 = np.array([bw["x0_m"], bw["y0_m"], elevation], float)
        p1 = np.array([bw["x1_m"], bw["y1_m"], elevation], float)
        at, body = _run(m, p0, p1, hplace, BUSWAY_SIDE_M, BUSWAY_SIDE_M)
        seg = f.createIfcCableSegment(
            m.guid(f"busway/{bw['busway_id']}"), None, str(bw["busway_id"]), None, str(bw["model"]), at, body,
            None, "BUSBARSEGMENT",
        )  # fmt: skip
        m.pset(seg, f"busway/{bw['busway_id']}", {
            "busway_id": str(bw["busway_id"]), "model": str(bw["model"]), "side": str(bw["side"]),
            "rating_kw": float(bw["rating_kw"]), "load_kw": float(bw["load_kw"]), "ups_id": str(bw["ups_id"]),
        })  # fmt: skip
        where.add(hall, seg)

    for cdu in [] if scene.cdus is None else scene.cdus.to_dict("records"):
        hall = str(cdu["hall"])
        at = _turned(
            m, float(cdu["x_m"]), float(cdu["y_m"]), float(cdu["rotation_deg"]), where.spaces[hall][1]
        )
        unit = f.createIfcUnitaryEquipment(
            m.guid(f"cdu/{cdu['cdu_id']}"), None, str(cdu["cdu_id"]), None, "CDU", at,
            m.box(float(cdu["width_m"]), float(cdu["depth_m"]), CDU_HEIGHT_M), None, "USERDEFINED",
        )  # fmt: skip
        m.pset(unit, f"cdu/{cdu['cdu_id']}", {
            "cdu_id": str(cdu["cdu_id"]), "model": str(cdu["model"]), "rating_kw": float(cdu["rating_kw"]),
            "load_kw": float(cdu["load_kw"]), "standby": bool(cdu["standby"]), "rows": str(cdu["rows"]),
        })  # fmt: skip
        where.add(hall, unit)
    for cab in [] if scene.fibre_cabinets is None else scene.fibre_cabinets.to_dict("records"):
        hall = str(cab["hall"])
        unit = f.createIfcFurniture(
            m.guid(f"fibre/{cab['cabinet_id']}"), None, str(cab["cabinet_id"]), None, "Fibre cabinet",
            _turned(m, float(cab["x_m"]), float(cab["y_m"]), float(cab["rotation_deg"]), where.spaces[hall][1]),
            m.box(float(cab["width_m"]), float(cab["depth_m"]), FIBRE_CABINET_RU * RU_M), None, "USERDEFINED",
        )  # fmt: skip
        m.pset(unit, f"fibre/{cab['cabinet_id']}", {
            "cabinet_id": str(cab["cabinet_id"]), "location": str(cab["cabinet_id"]).rsplit("/", 1)[0],
            "run_m": float(cab["run_m"]),
        })  # fmt: skip
        where.add(hall, unit)
    where.contain_all(m)
    return f


def rack_properties(design: Design, rack: Mapping[Any, Any]) -> dict[str, Any]:
    """What ``Pset_dclayout`` says of a scene rack: its kW is all heat, its weight what stands on the
    floor (devices and empty rack, as layout/power/loads.py weighs it)."""
    no = int(rack["rack_no"])
    return {
        "rack_id": str(rack["rack_id"]),
        "template": str(rack["template"]),
        "kind": str(rack["kind"]),
        "servers": int(rack["servers"]),
        "power_kw": float(rack["power_kw"]),
        "heat_kw": float(rack["power_kw"]),
        "weight_kg": float(design.power.rack_weight_kg[no]),
    }


def write_ifc(design: Design, path: str | Path, scene: Scene) -> Path:
    """Write ``STEM.ifc`` to ``path`` atomically; returns the path."""
    model = build(design, scene)
    with atomic_path(path) as tmp:
        tmp.write_text(model.to_string(), encoding="utf-8")
    return Path(path)
