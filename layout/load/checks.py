"""The cross checks of a site: buildings and halls (ids, footprints, halls inside buildings, anchors,
keep-outs), catalog parts named by halls and the cluster, SU orders, drawing names, then the ducts,
rows and tray edits of layout.load.geometry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shapely.geometry import Point as ShapelyPoint
from shapely.geometry import Polygon

from layout import sheet_names
from layout.errors import Problem
from layout.load.geometry import (
    ENTRY_TOLERANCE_M,
    MAX_HALL_AREA_M2,
    HallGeo,
    area_text,
    check_ducts,
    check_rows,
    check_tray_edits,
    checked_polygon,
    extent,
    nearest_on,
)
from layout.load.messages import as_toml, coord, id_list, num, xy
from layout.load.parts import Fields, Parts
from layout.model import Catalog, RackTemplate
from layout.model.site import su_number


def cross_check(
    parts: Parts, catalog: Catalog | None, templates: Mapping[str, RackTemplate] | None, file: str
) -> list[Problem]:
    p: list[Problem] = []
    buildings: dict[str, tuple[int, Polygon | None, tuple[float, float] | None]] = {}
    halls: dict[str, HallGeo] = {}  # "B1/H1" -> geometry
    footprints: list[tuple[str, Polygon]] = []
    for b in parts.buildings:
        bkey = f"building[{b.index}]"
        bid = b.f.get("id")
        fp = checked_polygon(b.f.get("footprint"), file, f"{bkey}.footprint", p)
        entry = b.f.get("entry")
        if bid is not None:
            if bid in buildings:
                p.append(
                    Problem(
                        file,
                        f"{bkey}.id",
                        f'duplicate building id "{bid}", building[{buildings[bid][0]}] already uses it',
                        "an id no other building uses",
                    )
                )
            else:
                buildings[bid] = (b.index, fp, entry)
        if fp is not None and entry is not None:
            gap = fp.exterior.distance(ShapelyPoint(entry))
            if gap > ENTRY_TOLERANCE_M:
                p.append(
                    Problem(
                        file,
                        f"{bkey}.entry",
                        f"entry at {xy(entry)} is {coord(gap)} m from building {bid}'s outer wall",
                        f"a point within {num(ENTRY_TOLERANCE_M)} m of the footprint outline, "
                        f"e.g. {xy(nearest_on(fp.exterior, entry))}",
                    )
                )
        mdf_at = b.f.get("mdf_at")
        if fp is not None and mdf_at is not None and not fp.buffer(1e-6).contains(ShapelyPoint(mdf_at)):
            p.append(
                Problem(
                    file,
                    f"{bkey}.mdf_at",
                    f"mdf_at {xy(mdf_at)} is outside building {bid}'s footprint",
                    f"a point inside the footprint, {extent(fp)}",
                )
            )
        if fp is not None:
            for other, op in footprints:
                shared = fp.intersection(op).area
                if shared > 1e-6:
                    what = (
                        f"is the same as building {other}'s"
                        if fp.equals(op)
                        else f"overlaps building {other}'s by {area_text(shared)} m²"
                    )
                    p.append(
                        Problem(
                            file,
                            f"{bkey}.footprint",
                            f"building {bid}'s footprint {what}",
                            "buildings that do not overlap",
                        )
                    )
            footprints.append((str(bid), fp))
        placed: list[tuple[str, Polygon]] = []
        seen: dict[str, int] = {}
        for hi, h in b.halls:
            hkey = f"{bkey}.hall[{hi}]"
            hid = h.get("id")
            name = f"{bid}/{hid}"
            if hid is not None:
                if hid in seen:
                    p.append(
                        Problem(
                            file,
                            f"{hkey}.id",
                            f'duplicate hall id "{hid}", {bkey}.hall[{seen[hid]}] already uses it',
                            f"an id no other hall of building {bid} uses",
                        )
                    )
                else:
                    seen[hid] = hi
            if catalog is not None:
                p += _check_hall_power(h.get("power"), catalog, file, hkey)
            hp = checked_polygon(h.get("polygon"), file, f"{hkey}.polygon", p)
            if hid is not None and bid is not None and name not in halls:
                halls[name] = HallGeo(hkey, hp)
            if hp is None:
                continue
            if hp.area > MAX_HALL_AREA_M2:
                p.append(
                    Problem(
                        file,
                        f"{hkey}.polygon",
                        f"hall {name} of {area_text(hp.area)} m² is larger than the tool designs",
                        f"a hall of at most {area_text(MAX_HALL_AREA_M2)} m² (1 km²); split it into several halls",
                    )
                )
                continue
            if fp is not None and not fp.buffer(1e-6).contains(hp):
                outside = hp.difference(fp).area
                where = (
                    "lies entirely outside"
                    if outside >= hp.area - 1e-6
                    else f"reaches {area_text(outside)} m² outside"
                )
                p.append(
                    Problem(
                        file,
                        f"{hkey}.polygon",
                        f"hall {name} {where} building {bid}'s footprint",
                        f"a polygon within the footprint, {extent(fp)}",
                    )
                )
            for other, op in placed:
                shared = hp.intersection(op).area
                if shared > 1e-6:
                    p.append(
                        Problem(
                            file,
                            f"{hkey}.polygon",
                            f"hall {name} overlaps hall {bid}/{other} by {area_text(shared)} m²",
                            "halls of one building that do not overlap",
                        )
                    )
            placed.append((str(hid), hp))
            spine_at = h.get("spine_at")
            if spine_at is not None and not hp.buffer(1e-6).contains(ShapelyPoint(spine_at)):
                p.append(
                    Problem(
                        file,
                        f"{hkey}.spine_at",
                        f"spine_at {xy(spine_at)} is outside hall {name}",
                        f"a point inside the hall, {extent(hp)}",
                    )
                )
            for ci, c in enumerate(h.get("columns") or []):
                if not hp.buffer(1e-6).contains(ShapelyPoint(c.at)):
                    p.append(
                        Problem(
                            file,
                            f"{hkey}.columns[{ci}].at",
                            f"column at {xy(c.at)} is outside hall {name}",
                            f"a point inside the hall, {extent(hp)}",
                        )
                    )
            for ki, k in enumerate(h.get("keepouts") or []):
                kkey = f"{hkey}.keepouts[{ki}].polygon"
                kp = checked_polygon(k.polygon, file, kkey, p)
                if kp is not None and not hp.buffer(1e-6).contains(kp):
                    where = "lies outside" if not kp.intersects(hp) else "reaches outside"
                    p.append(
                        Problem(
                            file,
                            kkey,
                            f"keep-out {where} hall {name}",
                            f"a polygon within the hall, {extent(hp)}",
                        )
                    )
    p += check_ducts(parts, buildings, file)
    p += _check_su_orders(parts, file)
    p += _check_sheet_names(parts, file)
    if catalog is not None:
        p += _check_cluster(parts.cluster, catalog, templates, file)
    p += check_rows(parts, halls, templates, file)
    p += check_tray_edits(parts, halls, file)
    return p


def _check_su_orders(parts: Parts, file: str) -> list[Problem]:
    """An SU listed twice in a hall's ``su_order``, or in the orders of two halls (an SU stands in one
    hall). Whether the cluster has the SU is for the fabric to say (layout.design.check)."""
    p: list[Problem] = []
    first: dict[tuple[int, int], str] = {}
    for b in parts.buildings:
        for hi, h in b.halls:
            order = h.get("su_order")
            if not order:
                continue
            name = f"{b.f.get('id')}/{h.get('id')}"
            for k, text in enumerate(order):
                su = su_number(text)
                if su in first:
                    where = "earlier in this hall's order" if first[su] == name else f"in {first[su]}'s order"
                    p.append(
                        Problem(
                            file,
                            f"building[{b.index}].hall[{hi}].su_order[{k}]",
                            f'SU "{text}" is already listed {where}',
                            "each SU once in the whole site",
                        )
                    )
                else:
                    first[su] = name
    return p


def _check_hall_power(power: Any, catalog: Catalog, file: str, hkey: str) -> list[Problem]:
    """A hall's [power] names catalog parts: ups, switchboard, busway, cdu."""
    if power is None:
        return []
    out = []
    for key, parts, what in (
        ("ups", catalog.ups, "UPS block"),
        ("switchboard", catalog.switchboard, "switchboard"),
        ("busway", catalog.busway, "busway"),
        ("cdu", catalog.cdu, "CDU"),
    ):
        got = getattr(power, key, None)
        if got is not None and got not in parts:
            out.append(Problem(file, f"{hkey}.power.{key}", f"unknown {what} {as_toml(got)}", id_list(parts)))
    return out


def _check_sheet_names(parts: Parts, file: str) -> list[Problem]:
    """Each building and hall whose name in the drawings (:mod:`layout.sheet_names`) an earlier one has,
    ignoring case: its plan would overwrite the other's file, its DXF layout could not be made."""
    keys: list[str] = []
    named: list[tuple[str, str]] = []
    ids: set[str] = set()
    for b in parts.buildings:
        bid = b.f.get("id")
        if bid is None or bid in ids:  # a duplicate id is a problem of its own
            continue
        ids.add(bid)
        halls = {str(h["id"]): f"building[{b.index}].hall[{hi}].id" for hi, h in b.halls if "id" in h}
        for hid, what, name in sheet_names.names_of(str(bid), halls):
            keys.append(f"building[{b.index}].id" if hid is None else halls[hid])
            named.append((what, name))
    p: list[Problem] = []
    seen: set[str] = set()
    for i, first in sheet_names.clashes(named):
        if keys[i] in seen:
            continue
        seen.add(keys[i])
        what, name = named[i]
        had = "the DXF model space's name" if first is None else f"as {first} is"
        p.append(
            Problem(
                file,
                keys[i],
                f'{what} would be named "{name}", {had} (drawing and file names ignore case)',
                "ids that give each building and hall names of their own, as BUILDING-HALL",
            )
        )
    return p


def _check_cluster(
    c: Fields | None, catalog: Catalog, templates: Mapping[str, RackTemplate] | None, file: str
) -> list[Problem]:
    p: list[Problem] = []
    if c is None:
        return p
    server, switch, nic = c.get("server"), c.get("switch"), c.get("nic")
    if server is not None and server not in catalog.server:
        p.append(Problem(file, "cluster.server", f'unknown server "{server}"', id_list(catalog.server)))
    if switch is not None and switch not in catalog.switch:
        p.append(Problem(file, "cluster.switch", f'unknown switch "{switch}"', id_list(catalog.switch)))
    if nic is not None and nic not in catalog.nic:
        p.append(Problem(file, "cluster.nic", f'unknown NIC "{nic}"', id_list(catalog.nic)))
    if templates is not None:
        gpu_templates = sorted(t for t, tpl in templates.items() if tpl.kind == "gpu")
        for key in ("rack", "rack_low_density"):
            tid = c.get(key)
            if tid is None:
                continue
            if tid not in templates or templates[tid].kind != "gpu":
                what = (
                    f'"{tid}" is a {templates[tid].kind} rack, not a GPU rack'
                    if tid in templates
                    else f'unknown GPU rack template "{tid}"'
                )
                p.append(Problem(file, f"cluster.{key}", what, id_list(gpu_templates)))
            elif server in catalog.server and templates[tid].server_id({server}) is None:
                holds = templates[tid].server_id(set(catalog.server))
                what = f"{holds} servers" if holds else "no servers"
                fitting = [t for t in gpu_templates if templates[t].server_id({server})]
                p.append(
                    Problem(
                        file,
                        f"cluster.{key}",
                        f'template "{tid}" holds {what}, not cluster.server = "{server}"',
                        id_list(fitting) if fitting else f"first add a rack template holding {server}",
                    )
                )
    gpus, pod = c.get("gpus"), c.get("pod_gpus")
    if server in catalog.server and gpus is not None:
        per = catalog.server[server].gpus
        if gpus % per:
            lo, hi = gpus // per * per, (gpus // per + 1) * per
            p.append(
                Problem(
                    file,
                    "cluster.gpus",
                    f"{gpus} GPUs is not a whole number of {server} servers of {per} GPUs",
                    f"a multiple of {per}, e.g. {lo or hi} or {hi}"
                    if lo
                    else f"a multiple of {per}, e.g. {hi}",
                )
            )
        if pod:
            if pod % per:
                p.append(
                    Problem(
                        file,
                        "cluster.pod_gpus",
                        f"{pod} GPUs is not a whole number of {server} servers of {per} GPUs",
                        f"0 for one pod, or a multiple of {per}",
                    )
                )
            elif pod > gpus:
                p.append(
                    Problem(
                        file,
                        "cluster.pod_gpus",
                        f"a pod of {pod} GPUs is larger than the cluster's {gpus} GPUs",
                        f"0 for one pod, or a multiple of {per} up to {gpus}",
                    )
                )
    return p
