"""The design as a digital twin's stage: ``STEM.usda`` (OpenUSD, text), written with usd-core (``[twin]``).

Organised as an Omniverse-style twin loads a site: metres (``metersPerUnit = 1``), ``upAxis = "Z"``,
site coordinates (x east, y north), default prim ``/Site``; model kinds ``assembly`` down to the halls,
``group`` for the collections, ``component`` for each rack and CDU:

- ``/Site/Building_B1/Hall_H1``: the hall, its ``Floor`` (a mesh of its polygon), ``Columns`` and
  ``Keepouts`` (a mesh each, the keep-out's reason in ``dclayout:reason``);
- ``.../Racks/R01/K07`` for rack ``B1/H1/R01/K07``: an Xform at the rack's centre turned as it stands,
  with a ``Body`` cube of its footprint and RU height, and the attributes ``dclayout:rack_id``,
  ``dclayout:template``, ``dclayout:kind``, ``dclayout:servers``, ``dclayout:power_kw``,
  ``dclayout:heat_kw`` (all its power becomes heat), ``dclayout:weight_kg`` (devices and empty rack),
  ``dclayout:ports`` (cabled ports: link ends in the rack) and ``dclayout:devices`` (its device ids);
- ``.../Trays/T0007``: tray segment 7 (of the trays table) as a box from node to node, with its kind,
  place, length, cables and fill; ``.../Busways/R01_A1`` (0.4 m under the trays, rating and load) and
  ``.../CDUs/CDU01`` (rating, load, flow); segments outside every hall under ``/Site/Campus/Trays``.

Prims are written in table order, numbers with fixed formatting: the same design gives the same bytes.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from layout.export.atomic import write_text

if TYPE_CHECKING:
    from layout.design import Design
    from layout.scene import Scene

RU_M = 0.04445  # one rack unit, EIA-310
BUSWAY_BELOW_TRAYS_M = 0.4  # as the IFC model
BUSWAY_SIDE_M = 0.15
CDU_HEIGHT_M = 2.0
FIBRE_CABINET_HEIGHT_M = 42 * 0.04445  # 42U
_NOT_NAME = re.compile(r"[^A-Za-z0-9_]")


def prim_name(text: str, prefix: str = "") -> str:
    """A valid prim name: letters, digits and ``_`` (others become ``_``), not starting with a digit."""
    name = _NOT_NAME.sub("_", f"{prefix}{text}")
    return name if name and not name[0].isdigit() else f"_{name}"


class _Stage:
    def __init__(self, design: Design) -> None:
        try:
            from pxr import Gf, Kind, Sdf, Usd, UsdGeom, Vt
        except ImportError as e:
            raise ModuleNotFoundError("--usd needs usd-core: pip install 'dclayout[twin]'") from e
        self.Gf, self.Kind, self.Sdf, self.UsdGeom, self.Vt = Gf, Kind, Sdf, UsdGeom, Vt
        self.stage = Usd.Stage.CreateInMemory(f"{design.inputs.stem}.usda")
        UsdGeom.SetStageMetersPerUnit(self.stage, UsdGeom.LinearUnits.meters)
        UsdGeom.SetStageUpAxis(self.stage, UsdGeom.Tokens.z)
        site = design.inputs.site.site
        self.stage.GetRootLayer().documentation = (
            f"{site.name} (revision {site.revision}, {site.date}): dclayout"
        )

    def xform(self, path: str, kind: str | None = None) -> Any:
        prim = self.UsdGeom.Xform.Define(self.stage, path)
        if kind:
            from pxr import Usd

            Usd.ModelAPI(prim.GetPrim()).SetKind(kind)
        return prim

    def attrs(self, prim: Any, values: dict[str, Any]) -> None:
        """Custom ``dclayout:NAME`` attributes: text as string, whole numbers as int, reals as double,
        lists of text as string[]."""
        names = self.Sdf.ValueTypeNames
        for key, v in values.items():
            if isinstance(v, bool | np.bool_):
                kind, v = names.Bool, bool(v)
            elif isinstance(v, int | np.integer):
                kind, v = names.Int, int(v)
            elif isinstance(v, float | np.floating):
                kind, v = names.Double, float(v)
            elif isinstance(v, list | tuple):
                kind, v = names.StringArray, self.Vt.StringArray([str(x) for x in v])
            else:
                kind, v = names.String, str(v)
            prim.GetPrim().CreateAttribute(f"dclayout:{key}", kind, custom=True).Set(v)

    def box(self, path: str, size: tuple[float, float, float], lift: float, matrix: Any = None) -> Any:
        """A unit cube scaled to ``size``, raised by ``lift`` (its centre's height), in its parent's
        frame (``matrix``: a full transform instead, for runs)."""
        cube = self.UsdGeom.Cube.Define(self.stage, path)
        cube.CreateSizeAttr(1.0)
        cube.CreateExtentAttr(self.Vt.Vec3fArray([(-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)]))
        if matrix is not None:
            cube.AddTransformOp().Set(matrix)
        else:
            cube.AddTranslateOp().Set(self.Gf.Vec3d(0.0, 0.0, lift))
            cube.AddScaleOp().Set(self.Gf.Vec3f(*size))
        return cube

    def run(self, path: str, p0: np.ndarray, p1: np.ndarray, across: float, up: float) -> Any:
        """A box from p0 to p1, ``across`` wide and ``up`` high (a riser: ``up`` along y)."""
        d = p1 - p0
        length = float(np.linalg.norm(d))
        z = d / length if length > 1e-9 else np.array([1.0, 0.0, 0.0])
        vertical = abs(float(z[2])) > 1 - 1e-9
        side = (
            np.array([1.0, 0.0, 0.0]) if vertical else np.array([-z[1], z[0], 0.0]) / math.hypot(z[0], z[1])
        )
        top = np.cross(z, side)
        mid = (p0 + p1) / 2
        rows = [z * max(length, 1e-6), side * across, top * up]
        m = self.Gf.Matrix4d(*(float(v) for r in rows for v in (*r, 0.0)), *(float(v) for v in mid), 1.0)
        return self.box(path, (1.0, 1.0, 1.0), 0.0, m)

    def mesh(self, path: str, ring: list[tuple[float, float]], z: float = 0.0) -> Any:
        """A flat polygon mesh at height ``z``."""
        pts = [(float(x), float(y), z) for x, y in ring]
        if len(pts) > 1 and pts[0] == pts[-1]:
            pts = pts[:-1]
        mesh = self.UsdGeom.Mesh.Define(self.stage, path)
        mesh.CreatePointsAttr(self.Vt.Vec3fArray(pts))
        mesh.CreateFaceVertexCountsAttr(self.Vt.IntArray([len(pts)]))
        mesh.CreateFaceVertexIndicesAttr(self.Vt.IntArray(list(range(len(pts)))))
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        mesh.CreateExtentAttr(self.Vt.Vec3fArray([(min(xs), min(ys), z), (max(xs), max(ys), z)]))
        return mesh


def build(design: Design, scene: Scene) -> Any:
    """The stage (a ``pxr.Usd.Stage`` in memory) of ``design``, drawn from its ``scene``."""
    s = _Stage(design)
    site = s.xform("/Site", s.Kind.Tokens.assembly)
    s.stage.SetDefaultPrim(site.GetPrim())
    s.attrs(site, {"site": design.inputs.site.site.name, "stem": design.inputs.stem})
    nodes = design.cabling.trays.nodes
    tray_z = {str(k): float(v) for k, v in nodes.groupby("hall")["z_m"].max().items()} if len(nodes) else {}
    halls = _halls(s, design, tray_z)
    _racks(s, design, scene, halls)
    _runs(s, design, scene, halls, tray_z)
    for cdu in [] if scene.cdus is None else scene.cdus.to_dict("records"):
        path = f"{halls[str(cdu['hall'])]}/CDUs/{prim_name(str(cdu['cdu_id']).rsplit('/', 1)[-1])}"
        unit = s.xform(path, s.Kind.Tokens.component)
        unit.AddTranslateOp().Set(s.Gf.Vec3d(float(cdu["x_m"]), float(cdu["y_m"]), 0.0))
        unit.AddRotateZOp().Set(float(cdu["rotation_deg"]))
        s.box(f"{path}/Body", (float(cdu["width_m"]), float(cdu["depth_m"]), CDU_HEIGHT_M), CDU_HEIGHT_M / 2)
        s.attrs(unit, {
            "cdu_id": str(cdu["cdu_id"]), "model": str(cdu["model"]), "rating_kw": float(cdu["rating_kw"]),
            "load_kw": float(cdu["load_kw"]), "flow_l_per_s": float(cdu["load_flow_l_per_s"]),
            "standby": bool(cdu["standby"]),
        })  # fmt: skip
    for cab in [] if scene.fibre_cabinets is None else scene.fibre_cabinets.to_dict("records"):
        tail = "_".join(str(cab["cabinet_id"]).split("/")[-3:])
        path = f"{halls[str(cab['hall'])]}/FibreCabinets/{prim_name(tail)}"
        unit = s.xform(path, s.Kind.Tokens.component)
        unit.AddTranslateOp().Set(s.Gf.Vec3d(float(cab["x_m"]), float(cab["y_m"]), 0.0))
        unit.AddRotateZOp().Set(float(cab["rotation_deg"]))
        height = FIBRE_CABINET_HEIGHT_M
        s.box(f"{path}/Body", (float(cab["width_m"]), float(cab["depth_m"]), height), height / 2)
        s.attrs(unit, {"cabinet_id": str(cab["cabinet_id"]), "run_m": float(cab["run_m"])})
    return s.stage


def _halls(s: _Stage, design: Design, tray_z: dict[str, float]) -> dict[str, str]:
    """The buildings and halls with their floors, columns and keep-outs; returns each hall's prim path."""
    halls: dict[str, str] = {}
    for b in design.inputs.site.building:
        s.xform(f"/Site/{prim_name(b.id, 'Building_')}", s.Kind.Tokens.assembly)
        for h in b.hall:
            key = f"{b.id}/{h.id}"
            path = halls[key] = f"/Site/{prim_name(b.id, 'Building_')}/{prim_name(h.id, 'Hall_')}"
            top = tray_z.get(key, h.tray.height_m)
            hall = s.xform(path, s.Kind.Tokens.assembly)
            s.attrs(
                hall,
                {"hall": key, "cooling": h.cooling, "max_rack_kw": float(h.max_rack_kw), "tray_z_m": top},
            )
            s.mesh(f"{path}/Floor", list(h.polygon))
            for name in ("Racks", "Columns", "Keepouts", "Trays", "Busways", "CDUs"):
                s.xform(f"{path}/{name}", s.Kind.Tokens.group)
            for i, column in enumerate(h.columns, start=1):
                col = s.xform(f"{path}/Columns/C{i:03d}")
                col.AddTranslateOp().Set(s.Gf.Vec3d(column.at[0], column.at[1], 0.0))
                height = top + 0.6
                s.box(
                    f"{path}/Columns/C{i:03d}/Body", (column.size_m[0], column.size_m[1], height), height / 2
                )
            for i, k in enumerate(h.keepouts, start=1):
                s.attrs(s.mesh(f"{path}/Keepouts/KO{i:03d}", list(k.polygon), 0.01), {"reason": k.reason})
    return halls


def _racks(s: _Stage, design: Design, scene: Scene, halls: dict[str, str]) -> None:
    """Each rack an Xform (``.../Racks/R01/K07``) with its body and attributes."""
    racks = design.placement.racks
    ends = np.zeros(len(racks), np.int64)
    for col in ("rack_a", "rack_b"):
        at = design.cabling.links[col].to_numpy(np.int64)
        ends += np.bincount(at[at >= 0], minlength=len(racks))
    dev_rack = np.asarray(design.placement.device_rack, np.int64)
    ids = design.fabric.devices["device_id"].astype(str).to_numpy()
    order = np.argsort(dev_rack, kind="stable")
    bounds = np.searchsorted(dev_rack[order], np.arange(len(racks) + 1))
    rows_made: set[str] = set()
    for r in scene.racks.to_dict("records"):
        no = int(r["rack_no"])
        _, _, row, pos = str(r["rack_id"]).split("/")
        row_path = f"{halls[str(r['hall'])]}/Racks/{prim_name(row)}"
        if row_path not in rows_made:
            rows_made.add(row_path)
            s.xform(row_path, s.Kind.Tokens.group)
        rack = s.xform(f"{row_path}/{prim_name(pos)}", s.Kind.Tokens.component)
        rack.AddTranslateOp().Set(s.Gf.Vec3d(float(r["x_m"]), float(r["y_m"]), 0.0))
        rack.AddRotateZOp().Set(float(r["rotation_deg"]))
        tpl = design.inputs.templates.get(str(r["template"]))
        height = (tpl.height_ru if tpl is not None else 42) * RU_M
        s.box(
            f"{row_path}/{prim_name(pos)}/Body",
            (float(r["width_m"]), float(r["depth_m"]), height),
            height / 2,
        )
        s.attrs(rack, {
            "rack_id": str(r["rack_id"]), "template": str(r["template"]), "kind": str(r["kind"]),
            "servers": int(r["servers"]), "power_kw": float(r["power_kw"]), "heat_kw": float(r["power_kw"]),
            "weight_kg": float(design.power.rack_weight_kg[no]), "ports": int(ends[no]),
            "devices": ids[order[bounds[no] : bounds[no + 1]]].tolist(),
        })  # fmt: skip


def _runs(s: _Stage, design: Design, scene: Scene, halls: dict[str, str], tray_z: dict[str, float]) -> None:
    """Tray segments (``.../Trays/T0007``; outside every hall: ``/Site/Campus/Trays``) and busways."""
    trays = design.cabling.trays
    xyz = trays.nodes[["x_m", "y_m", "z_m"]].to_numpy(float)
    fill = design.cabling.edge_fill
    for i, e in enumerate(trays.edges.to_dict("records")):
        parent = halls.get(str(e["hall"]))
        if parent is None:
            parent = "/Site/Campus"
            if not s.stage.GetPrimAtPath(parent):
                s.xform(parent, s.Kind.Tokens.group)
                s.xform(f"{parent}/Trays", s.Kind.Tokens.group)
        seg = s.run(f"{parent}/Trays/T{i:04d}", xyz[int(e["u"])], xyz[int(e["v"])], e["width_mm"] / 1000.0,
                    e["depth_mm"] / 1000.0)  # fmt: skip
        s.attrs(seg, {
            "edge": i, "kind": str(e["kind"]), "hall": str(e["hall"]), "where": str(e["where"]),
            "length_m": float(e["length_m"]), "width_mm": float(e["width_mm"]),
            "cables": int(fill["cables"].iloc[i]), "fill": float(fill["fill"].iloc[i]),
        })  # fmt: skip
    for bw in [] if scene.busways is None else scene.busways.to_dict("records"):
        key = str(bw["hall"])
        z = tray_z.get(key, 2.9) - BUSWAY_BELOW_TRAYS_M
        name = prim_name(str(bw["busway_id"]).split("/", 2)[-1])
        seg = s.run(f"{halls[key]}/Busways/{name}", np.array([bw["x0_m"], bw["y0_m"], z], float),
                    np.array([bw["x1_m"], bw["y1_m"], z], float), BUSWAY_SIDE_M, BUSWAY_SIDE_M)  # fmt: skip
        s.attrs(seg, {
            "busway_id": str(bw["busway_id"]), "model": str(bw["model"]), "side": str(bw["side"]),
            "rating_kw": float(bw["rating_kw"]), "load_kw": float(bw["load_kw"]),
        })  # fmt: skip


def write_usd(design: Design, path: str | Path, scene: Scene) -> Path:
    """Write ``STEM.usda`` to ``path`` atomically; returns the path."""
    stage = build(design, scene)  # held while its layer is read: the layer dies with the stage
    return write_text(path, stage.GetRootLayer().ExportToString())
