"""Power, energy and floor-load checks: rack kW, row/hall/building/site MW, annual energy and cost.

Per device (kW):
- server: the catalog ``power_kw`` + the NIC option's ``power_w_extra`` per backend port + the node-side
  optical modules (one per optical backend port, or one per ``ports_per_module`` ports for dual-port
  modules; one per optical frontend/storage port) at the default optical module's power;
- switch: ``power_w_copper`` (the switch with every port on passive copper) plus the watts of its
  modules and active-cable ends, never above ``power_w_optics`` (its catalog maximum, every cage at its
  modules' power class): :func:`switch_power_kw`.

The modules' watts come from the cabling step (``Cabling.module_w``: each module at its medium's power
for its width, single- or twin-port; AEC ends at theirs). Before it, :func:`estimate_module_w` takes
every optical link end at the default optical medium: one single-port module per server port (per
``ports_per_module`` backend ports for dual-port NICs, at the twin-port figure), twin-port modules on
switches with ``ports_per_cage`` > 1.

Until the cabling step assigns media, a link is taken as optical when it leaves the rack (its two ends
sit in different racks, or one end is not placed) and as copper inside a rack; out-of-band links are
copper (RJ45). The cabling step passes its own ``module_w`` (or a whole per-device power array) to
:func:`check`.

Every breach is a :class:`~layout.violations.Violation` (never an exception): ``rack_kw``, ``hall_mw``,
``building_mw``, ``site_mw``, ``floor_load``, ``cooling`` (a rack needing a better cooling type than its
hall's, or a hall drawing more than its cooling capacity, layout/power/cooling.py). Rack-level breaches are reported once per hall
(and template), with the worst rack as the location and the count in the figures.

What comes from the placement and the modules alone (kW per device, rack and row, floor loads, each
hall's and building's sums: :class:`RackLoads`) is apart from the halls' limits, which :func:`check`
applies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.capacity import hall_cooling_mw
from layout.estimates import default_module_w
from layout.fabric import is_switch_role
from layout.power.cooling import heat_violations
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.memo import Scope
    from layout.model import Catalog
    from layout.place import Placement

HOURS_PER_YEAR = 8760.0
COOLING_RANK = {"air": 0, "rear-door": 1, "liquid": 2}


# ------------------------------------------------------------------------------------------ per device
def link_optical_default(fabric: Fabric, device_rack: np.ndarray) -> np.ndarray:
    """Per link: True when it leaves the rack (or an end is unplaced), False in-rack and for oob."""
    a = fabric.links["a"].to_numpy()
    b = fabric.links["b"].to_numpy()
    ra, rb = device_rack[a], device_rack[b]
    leaves = (ra != rb) | (ra < 0) | (rb < 0)
    return np.asarray(leaves & (fabric.links["network"] != "oob").to_numpy())


def estimate_module_w(
    inputs: Inputs, fabric: Fabric, device_rack: np.ndarray, link_optical: np.ndarray | None = None
) -> np.ndarray:
    """Watts of modules per device before media are assigned: each optical link end (``link_optical``,
    default :func:`link_optical_default`) at the default optical medium; servers one single-port module
    per port (per ``ports_per_module`` backend ports on dual-port NICs), switches on modules of
    ``ports_per_cage`` links."""
    cat = inputs.catalog
    dev = fabric.devices
    n = len(dev)
    links = fabric.links
    optical = (
        link_optical_default(fabric, device_rack) if link_optical is None else np.asarray(link_optical, bool)
    )
    a, b = links["a"].to_numpy(), links["b"].to_numpy()
    model_code, models = pd.factorize(dev["model"].to_numpy())
    is_server = (dev["role"] == "server").to_numpy()
    ends = np.r_[a[optical], b[optical]]
    backend = np.r_[(links["network"] == "backend").to_numpy()[optical]] if len(links) else np.zeros(0, bool)
    backend = np.r_[backend, backend]
    srv_end = is_server[ends] if len(ends) else np.zeros(0, bool)
    be = np.bincount(ends[srv_end & backend], minlength=n)
    other = np.bincount(ends[srv_end & ~backend], minlength=n)
    sw_links = np.bincount(ends[~srv_end], minlength=n)
    nic = fabric.nic if fabric.nic in cat.nic else inputs.site.cluster.nic
    per_nic = cat.backend_per_cage(fabric.server, nic)
    out = (-(-be // per_nic)) * default_module_w(cat, per_nic) + other * default_module_w(cat)
    for i, model in enumerate(models):
        sw = cat.switch.get(str(model))
        m = (model_code == i) & ~is_server
        if sw is None:
            if str(model) in cat.node:  # storage and CPU nodes: a single-port module per optical link
                out[m] = sw_links[m] * default_module_w(cat)
            continue
        per = sw.ports_per_cage
        out[m] = (-(-sw_links[m] // per)) * default_module_w(cat, per)
    return out.astype(float)


Models = tuple[np.ndarray, Any]  # pd.factorize of the devices' model column: codes and distinct models


def switch_power_kw(
    catalog: Catalog, devices: pd.DataFrame, module_w: np.ndarray, by_model: Models | None = None
) -> np.ndarray:
    """kW per device that is a catalog switch (NaN for the others): ``power_w_copper`` + its modules'
    ``module_w`` watts, never above ``power_w_optics`` (the catalog maximum). ``by_model``: the model
    column factorized, when the caller has it."""
    # the column itself: no Python strings
    model_code, models = pd.factorize(devices["model"]) if by_model is None else by_model
    role_code, roles = pd.factorize(devices["role"])
    is_switch = is_switch_role(np.asarray(roles, dtype=object))[role_code]  # per distinct role
    base = np.full(len(models), np.nan)
    top = np.full(len(models), np.nan)
    for i, model in enumerate(models):
        sw = catalog.switch.get(str(model))
        if sw is not None:
            base[i], top[i] = sw.power_w_copper, sw.power_w_optics
    out = np.minimum(base[model_code] + np.asarray(module_w, float), top[model_code]) / 1000.0
    return np.where(is_switch, out, np.nan)


def device_power_kw(
    inputs: Inputs,
    fabric: Fabric,
    device_rack: np.ndarray,
    link_optical: np.ndarray | None = None,
    module_w: np.ndarray | None = None,
    by_model: Models | None = None,
) -> np.ndarray:
    """kW per device of the fabric (servers and switches), aligned with ``fabric.devices``. ``module_w``:
    the cabling's watts of modules per device (default: :func:`estimate_module_w` from
    ``link_optical``); ``by_model``: the model column factorized, when the caller has it."""
    cat = inputs.catalog
    dev = fabric.devices
    mw = estimate_module_w(inputs, fabric, device_rack, link_optical) if module_w is None else module_w
    mw = np.asarray(mw, float)
    by_model = pd.factorize(dev["model"]) if by_model is None else by_model  # no Python strings
    out = np.nan_to_num(switch_power_kw(cat, dev, mw, by_model))
    model_code, models = by_model
    is_server = (dev["role"] == "server").to_numpy(bool)
    if is_server.any():
        nic = cat.nic[fabric.nic] if fabric.nic in cat.nic else cat.nic[inputs.site.cluster.nic]
        for i in np.unique(model_code[is_server]).tolist():
            srv = cat.server[str(models[i])]
            m = (model_code == i) & is_server
            out[m] = srv.power_kw + nic.power_w_extra * srv.backend_ports / 1000.0 + mw[m] / 1000.0
    for i, model in enumerate(models):  # storage and CPU nodes: their own figure and their modules
        node = cat.node.get(str(model))
        if node is not None:
            m = model_code == i
            out[m] = node.power_kw + mw[m] / 1000.0
    return out


CORD_FORMS = ("c13", "c19")  # the columns of :func:`device_cords` and of ``rack_side_cords``


def _device_specs(catalog: Catalog, models: Any) -> list[Any]:
    """The catalog entry (server, switch or node) of each model, None for a model not in the catalog."""
    return [catalog.device(m) for m in map(str, models)]


def device_cords(catalog: Catalog, fabric: Fabric, by_model: Models | None = None) -> np.ndarray:
    """Each device's PSU cords per form, as columns ``CORD_FORMS``: its model's ``power_cords`` (2, one
    per side, when the model does not say) of its ``power_cord`` form; 0 for a model not in the catalog."""
    model_code, models = pd.factorize(fabric.devices["model"]) if by_model is None else by_model
    per_model = np.zeros((len(models) + 1, len(CORD_FORMS)), np.int64)  # the last row: code -1
    for i, spec in enumerate(_device_specs(catalog, models)):
        if spec is not None:
            per_model[i, CORD_FORMS.index(spec.power_cord)] = (
                2 if spec.power_cords is None else spec.power_cords
            )
    return per_model[np.asarray(model_code)]


def device_weight_kg(inputs: Inputs, fabric: Fabric, by_model: Models | None = None) -> np.ndarray:
    return _per_device(inputs.catalog, fabric, "weight_kg", 0.0, by_model)


def device_height_ru(catalog: Catalog, fabric: Fabric, by_model: Models | None = None) -> np.ndarray:
    """Each device's height in U (1 for a model the catalog does not have)."""
    return _per_device(catalog, fabric, "height_ru", 1, by_model).astype(np.int64)


def _per_device(
    catalog: Catalog, fabric: Fabric, field: str, missing: float, by_model: Models | None
) -> np.ndarray:
    """Each device's catalog figure ``field``, looked up once per model (``missing`` without an entry)."""
    model_code, models = pd.factorize(fabric.devices["model"]) if by_model is None else by_model
    per_model = np.full(len(models) + 1, float(missing))  # the last: code -1
    for i, spec in enumerate(_device_specs(catalog, models)):
        if spec is not None:
            per_model[i] = getattr(spec, field)
    return per_model[np.asarray(model_code)]


def whole_tiles(width_m: np.ndarray, depth_m: np.ndarray, tile_m: np.ndarray) -> np.ndarray:
    """The whole floor tiles under each footprint (at least 1): a 600 x 1200 mm rack on 600 mm tiles
    stands on 2, so each carries half its weight (its front feet on one, its back feet on the other)."""
    across = np.floor(np.asarray(width_m, float) / tile_m + 1e-9)
    along = np.floor(np.asarray(depth_m, float) / tile_m + 1e-9)
    return np.maximum(across * along, 1.0)


# ------------------------------------------------------------------------------------------- report
@dataclass(frozen=True)
class PowerReport:
    """Power and floor figures of a placed design. Arrays align with ``placement.racks`` or devices."""

    device_kw: np.ndarray
    rack_kw: np.ndarray
    rack_limit_kw: np.ndarray  # the hall's max_rack_kw for each rack
    rack_floor_kg_m2: np.ndarray
    rack_weight_kg: np.ndarray  # devices + the empty rack
    rack_foot_kg: np.ndarray  # on each of the template's feet
    rack_tile_kg: np.ndarray  # on each whole floor tile under it (its weight over those tiles)
    rack_side_cords: np.ndarray  # per rack, the PSU cords on one side, columns CORD_FORMS
    rows: pd.DataFrame  # row, hall, racks, it_kw
    halls: pd.DataFrame  # hall, building, racks, it_kw, limit_mw, cooling_mw
    buildings: pd.DataFrame  # building, racks, it_kw, limit_mw
    it_mw: float
    facility_mw: float
    utility_mw: float
    annual_twh: float
    annual_cost_usd: float
    max_rack_kw: float
    violations: tuple[Violation, ...]

    def summary(self) -> dict[str, Any]:
        return {
            "it_mw": round(self.it_mw, 4),
            "facility_mw": round(self.facility_mw, 4),
            "annual_twh": round(self.annual_twh, 5),
            "annual_cost_usd": round(self.annual_cost_usd, 2),
            "max_rack_kw": round(self.max_rack_kw, 3),
        }


@dataclass(frozen=True)
class RackLoads:
    """What :func:`check` works out from the fabric, the placement and the modules' watts alone, none of
    it from the halls' limits: kW per device and rack, floor load per rack, the rows table, and each
    hall's and building's racks and kW. Arrays align with the devices or ``placement.racks``."""

    device_kw: np.ndarray
    rack_kw: np.ndarray
    rack_floor_kg_m2: np.ndarray
    rack_weight_kg: np.ndarray  # devices + the empty rack
    rack_foot_kg: np.ndarray  # the weight over the template's feet
    rack_tiles: np.ndarray  # whole floor tiles under the footprint (at least 1), at each hall's tile size
    rack_side_cords: np.ndarray  # per rack, the PSU cords on one side (each device's half, rounded up)
    rows: pd.DataFrame  # row, hall, racks, it_kw
    hall_keys: list[str]  # the halls with racks, in the order of their first rack
    hall_code: np.ndarray  # per rack, its hall's index in hall_keys
    hall_racks: dict[str, np.ndarray]  # per hall with racks: its racks' indices, ascending
    hall_templates: dict[str, list[tuple[str, int, int]]]  # per hall: (template, first rack, racks), sorted
    hall_load: dict[str, tuple[float, int]]  # per hall with racks: kW, racks
    building_load: dict[str, tuple[float, int]]  # per building with racks: kW, racks
    it_kw: float


def rack_loads(
    inputs: Inputs,
    fabric: Fabric,
    placement: Placement,
    device_kw: np.ndarray | None = None,
    link_optical: np.ndarray | None = None,
    module_w: np.ndarray | None = None,
    scope: Scope | None = None,
) -> RackLoads:
    """The placement's :class:`RackLoads`. ``scope``: a memo and the token of the fabric, placement and
    cabling (layout/memo.py), which keeps the loads by what else they read: the catalog (device power
    and weight), the rack templates (empty weights), the cluster's NIC and the given arrays. Not the
    halls: an edit of a hall's limits or cooling that moves no rack sums nothing again."""

    def make() -> RackLoads:
        return _rack_loads(inputs, fabric, placement, device_kw, link_optical, module_w)

    if scope is None:
        return make()
    parts = (inputs.catalog, dict(inputs.templates), inputs.site.cluster.nic, device_kw, link_optical)
    return scope.take("power.loads", parts, make)


def _rack_loads(
    inputs: Inputs,
    fabric: Fabric,
    placement: Placement,
    device_kw: np.ndarray | None,
    link_optical: np.ndarray | None,
    module_w: np.ndarray | None,
) -> RackLoads:
    racks = placement.racks
    nr = len(racks)
    by_model = pd.factorize(fabric.devices["model"])
    dkw = (
        device_power_kw(inputs, fabric, placement.device_rack, link_optical, module_w, by_model)
        if device_kw is None
        else np.asarray(device_kw, float)
    )
    placed = placement.device_rack >= 0
    rack_kw = np.bincount(placement.device_rack[placed], weights=dkw[placed], minlength=nr)
    weight = np.bincount(
        placement.device_rack[placed],
        weights=device_weight_kg(inputs, fabric, by_model)[placed],
        minlength=nr,
    )
    half = -(-device_cords(inputs.catalog, fabric, by_model)[placed] // 2)  # a device's cords to one side
    side_cords = np.stack(
        [
            np.bincount(placement.device_rack[placed], weights=half[:, k], minlength=nr)
            for k in range(half.shape[1])
        ],
        axis=1,
    ).astype(np.int64)
    tpl_code, tpl_names = pd.factorize(racks["template"])
    tpls = [str(t) for t in tpl_names]
    empty = (
        np.array([inputs.templates[t].weight_kg_empty for t in tpls], float)[tpl_code] if nr else np.zeros(0)
    )
    area = racks["width_m"].to_numpy() * racks["depth_m"].to_numpy()
    total = weight + empty
    floor = total / np.where(area > 0, area, 1.0)
    feet = np.array([inputs.templates[t].feet for t in tpls], float)[tpl_code] if nr else np.ones(0)
    hall_code, hall_names = pd.factorize(racks["hall"])  # in the order of first appearance, as pd.unique
    hall_keys = [str(h) for h in hall_names]
    tile_of = {f"{b.id}/{h.id}": h.tile_m for b, h in inputs.site.halls()}
    tile = np.array([tile_of.get(k, 0.6) for k in hall_keys], float)[hall_code] if nr else np.ones(0)
    tiles = whole_tiles(racks["width_m"].to_numpy(float), racks["depth_m"].to_numpy(float), tile)
    hall_racks: dict[str, np.ndarray] = {}
    hall_templates: dict[str, list[tuple[str, int, int]]] = {}
    hall_load: dict[str, tuple[float, int]] = {}
    order = np.argsort(hall_code, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(hall_code, minlength=len(hall_keys)))]
    for h, key in enumerate(hall_keys):
        idx = order[bounds[h] : bounds[h + 1]]
        hall_racks[key] = idx
        hall_load[key] = (float(rack_kw[idx].sum()), len(idx))
        codes = tpl_code[idx]
        first = {}
        for c in np.unique(codes).tolist():
            at = idx[codes == c]
            first[tpls[c]] = (int(at[0]), len(at))
        hall_templates[key] = [(t, *first[t]) for t in sorted(first)]
    bld_code, bld_names = pd.factorize(racks["building"])
    building_load: dict[str, tuple[float, int]] = {}
    for b, name in enumerate(bld_names):
        idx = np.flatnonzero(bld_code == b)
        building_load[str(name)] = (float(rack_kw[idx].sum()), len(idx))
    return RackLoads(
        device_kw=dkw,
        rack_kw=rack_kw,
        rack_floor_kg_m2=floor,
        rack_weight_kg=total,
        rack_foot_kg=total / feet,
        rack_tiles=tiles,
        rack_side_cords=side_cords,
        rows=_rows(racks, rack_kw),
        hall_keys=hall_keys,
        hall_code=hall_code,
        hall_racks=hall_racks,
        hall_templates=hall_templates,
        hall_load=hall_load,
        building_load=building_load,
        it_kw=float(dkw.sum()),
    )


def _rows(racks: pd.DataFrame, rack_kw: np.ndarray) -> pd.DataFrame:
    """Per row (sorted): its hall, racks and kW; as ``groupby("row").agg(...)`` gives it (its it_kw is
    pandas' own compensated sum, on the rows' codes instead of their names)."""
    if not len(racks):
        frame = pd.DataFrame({"row": racks["row"], "hall": racks["hall"], "it_kw": rack_kw})
        return (
            frame.groupby("row", sort=True)
            .agg(hall=("hall", "first"), racks=("it_kw", "size"), it_kw=("it_kw", "sum"))
            .reset_index()
        )
    code, names = pd.factorize(racks["row"], sort=True)
    n = len(names)
    first = np.full(n, len(code), np.int64)
    np.minimum.at(first, code, np.arange(len(code)))
    kw = pd.Series(rack_kw).groupby(code, sort=True).sum().to_numpy()
    return pd.DataFrame(
        {
            "row": pd.Series(names, dtype=racks["row"].dtype),
            "hall": racks["hall"].take(first).reset_index(drop=True),
            "racks": np.bincount(code, minlength=n).astype(np.int64),
            "it_kw": kw,
        }
    )


def check(
    inputs: Inputs,
    fabric: Fabric,
    placement: Placement,
    device_kw: np.ndarray | None = None,
    link_optical: np.ndarray | None = None,
    module_w: np.ndarray | None = None,
    scope: Scope | None = None,
) -> PowerReport:
    """Sum power per rack, row, hall, building and site; check every budget and the floor load.
    ``scope``: as :func:`rack_loads`."""
    site = inputs.site
    racks = placement.racks
    nr = len(racks)
    loads = rack_loads(inputs, fabric, placement, device_kw, link_optical, module_w, scope)
    dkw, rack_kw, floor = loads.device_kw, loads.rack_kw, loads.rack_floor_kg_m2
    halls_by_key = {f"{b.id}/{h.id}": h for b, h in site.halls()}
    limit = (
        np.array([halls_by_key[k].max_rack_kw for k in loads.hall_keys], float)[loads.hall_code]
        if nr
        else np.zeros(0)
    )

    it_kw = loads.it_kw
    it_mw = it_kw / 1000.0
    facility_mw = it_mw * site.site.pue
    annual_kwh = facility_mw * 1000.0 * HOURS_PER_YEAR * site.site.utilisation
    v: list[Violation] = _rack_violations(inputs, racks, loads, limit)
    hall_rows: list[dict[str, Any]] = []
    for b, h in site.halls():
        key = f"{b.id}/{h.id}"
        kw, n = loads.hall_load.get(key, (0.0, 0))
        cool = hall_cooling_mw(h, inputs.catalog)
        hall_rows.append(
            {"hall": key, "building": b.id, "racks": n, "it_kw": kw, "limit_mw": h.it_mw, "cooling_mw": cool}
        )
        if h.it_mw is not None and kw / 1000.0 > h.it_mw + 1e-9:
            v.append(_budget("hall_mw", key, kw / 1000.0, h.it_mw, "hall", n))
    bld_rows: list[dict[str, Any]] = []
    for b in site.building:
        kw, n = loads.building_load.get(b.id, (0.0, 0))
        bld_rows.append({"building": b.id, "racks": n, "it_kw": kw, "limit_mw": b.it_mw})
        if b.it_mw is not None and kw / 1000.0 > b.it_mw + 1e-9:
            v.append(_budget("building_mw", b.id, kw / 1000.0, b.it_mw, "building", n))
    halls = pd.DataFrame(hall_rows, columns=["hall", "building", "racks", "it_kw", "limit_mw", "cooling_mw"])
    v += heat_violations(inputs, halls)
    buildings = pd.DataFrame(bld_rows, columns=["building", "racks", "it_kw", "limit_mw"])
    if facility_mw > site.site.utility_mw + 1e-9:
        v.append(
            Violation(
                "site_mw",
                "site",
                f"facility power {facility_mw:.2f} MW (IT {it_mw:.2f} MW x PUE {site.site.pue:g}) exceeds the "
                f"utility feed of {site.site.utility_mw:g} MW",
                "raise site.utility_mw, lower the PUE or build fewer GPUs",
                {
                    "facility_mw": round(facility_mw, 3),
                    "it_mw": round(it_mw, 3),
                    "utility_mw": site.site.utility_mw,
                },
            )
        )
    return PowerReport(
        device_kw=dkw,
        rack_kw=rack_kw,
        rack_limit_kw=limit,
        rack_floor_kg_m2=floor,
        rack_weight_kg=loads.rack_weight_kg,
        rack_foot_kg=loads.rack_foot_kg,
        rack_tile_kg=loads.rack_weight_kg / loads.rack_tiles,
        rack_side_cords=loads.rack_side_cords,
        rows=loads.rows,
        halls=halls,
        buildings=buildings,
        it_mw=it_mw,
        facility_mw=facility_mw,
        utility_mw=site.site.utility_mw,
        annual_twh=annual_kwh / 1e9,
        annual_cost_usd=annual_kwh * site.site.electricity_usd_per_kwh,
        max_rack_kw=float(rack_kw.max()) if nr else 0.0,
        violations=tuple(v),
    )


def _budget(kind: str, where: str, mw: float, limit: float, what: str, racks: int) -> Violation:
    return Violation(
        kind,
        where,
        f"{what} {where} draws {mw:.2f} MW of IT over {racks} racks, above its {limit:g} MW limit "
        f"({mw - limit:.2f} MW over)",
        f"move racks to another {what}, raise {where}'s it_mw, or build fewer GPUs",
        {"it_mw": round(mw, 3), "limit_mw": limit, "racks": racks},
    )


def _worst(idx: np.ndarray, values: np.ndarray) -> tuple[int, int]:
    """The index of the largest of ``values`` at ``idx`` (ascending, not empty; the first of equals), and
    how many ``idx`` holds."""
    return int(idx[np.argmax(values[idx])]), len(idx)


def _rack_violations(
    inputs: Inputs, racks: pd.DataFrame, loads: RackLoads, limit: np.ndarray
) -> list[Violation]:
    """rack_kw, floor_load and cooling breaches, one per hall (and template) with the worst rack."""
    out: list[Violation] = []
    if not len(racks):
        return out
    halls = {f"{b.id}/{h.id}": h for b, h in inputs.site.halls()}
    ids = racks["rack_id"]
    rack_kw, floor = loads.rack_kw, loads.rack_floor_kg_m2
    for key in loads.hall_keys:
        hall = halls[key]
        m = loads.hall_racks[key]
        over = m[rack_kw[m] > limit[m] + 1e-9]
        if len(over):
            i, n = _worst(over, rack_kw)
            out.append(
                Violation(
                    "rack_kw",
                    str(ids.iat[i]),
                    f"{n} rack(s) in {key} exceed the hall's {hall.max_rack_kw:g} kW per rack; worst {ids.iat[i]} "
                    f"at {rack_kw[i]:.1f} kW",
                    "name a lower-density rack template in cluster.rack_low_density, or raise the hall's "
                    "max_rack_kw (rear-door or liquid cooling)",
                    {"racks": n, "max_kw": round(float(rack_kw[i]), 2), "limit_kw": hall.max_rack_kw},
                )
            )
        pdu = np.array([inputs.templates[t].pdu_kw for t in racks["template"].iloc[m].astype(str)], float)
        beyond = m[rack_kw[m] > pdu + 1e-9] if len(m) else m
        if len(beyond):
            i, n = _worst(beyond, rack_kw)
            t = str(racks["template"].iat[i])
            out.append(
                Violation(
                    "rack_kw",
                    str(ids.iat[i]),
                    f"{n} rack(s) in {key} draw more than their PDUs carry; worst {ids.iat[i]} ({t}) at "
                    f"{rack_kw[i]:.1f} kW on {inputs.templates[t].pdu_kw:g} kW of PDU",
                    f"raise pdu_kw of rack template {t} or put fewer devices in it",
                    {"racks": n, "max_kw": round(float(rack_kw[i]), 2), "pdu_kw": inputs.templates[t].pdu_kw},
                )
            )
        heavy = m[floor[m] > hall.floor_load_kg_m2 + 1e-9]
        if len(heavy):
            i, n = _worst(heavy, floor)
            out.append(
                Violation(
                    "floor_load",
                    str(ids.iat[i]),
                    f"{n} rack(s) in {key} load the floor above its {hall.floor_load_kg_m2:g} kg/m2 rating; "
                    f"worst {ids.iat[i]} ({racks['template'].iat[i]}) at {floor[i]:.0f} kg/m2",
                    "put these racks on a slab or a reinforced floor, or spread the load with a larger plinth",
                    {
                        "racks": n,
                        "max_kg_m2": round(float(floor[i]), 1),
                        "limit_kg_m2": hall.floor_load_kg_m2,
                    },
                )
            )
        tile_kg = loads.rack_weight_kg / loads.rack_tiles
        for what, per, limit_kg, unit in (
            ("foot", loads.rack_foot_kg, hall.point_load_kg, "point_load_kg"),
            ("tile", tile_kg, hall.tile_load_kg, "tile_load_kg"),
        ):
            if hall.floor == "slab":
                continue  # no tiles; a slab's point loads are the structural engineer's (the PDF says so)
            heavy = m[per[m] > limit_kg + 1e-9]
            if len(heavy):
                i, n = _worst(heavy, per)
                t = str(racks["template"].iat[i])
                where = (
                    f"on each of its {inputs.templates[t].feet} feet"
                    if what == "foot"
                    else f"on each of the {loads.rack_tiles[i]:.0f} {hall.tile_m:g} m tile(s) under it"
                )
                out.append(
                    Violation(
                        "floor_load",
                        str(ids.iat[i]),
                        f"{n} rack(s) in {key} put more than the floor's {limit_kg:g} kg per {what} "
                        f"({unit}) on it; worst {ids.iat[i]} ({t}), {loads.rack_weight_kg[i]:.0f} kg: "
                        f"{per[i]:.0f} kg {where}",
                        "spread the load (a plinth or load-spreading plate under the feet), use heavier-duty "
                        f"tiles, or raise the hall's {unit} to what the floor is rated for",
                        {
                            "racks": n,
                            f"max_kg_per_{what}": round(float(per[i]), 1),
                            f"limit_kg_per_{what}": limit_kg,
                        },
                    )
                )
        for t, i, count in loads.hall_templates[key]:
            need = inputs.templates[t].cooling
            if COOLING_RANK[need] > COOLING_RANK[hall.cooling]:
                out.append(
                    Violation(
                        "cooling",
                        str(ids.iat[i]),
                        f"{count} rack(s) of {t} need {need} cooling but hall {key} is {hall.cooling}-cooled",
                        f"place {t} in a {need}-cooled hall or change the hall's cooling",
                        {
                            "racks": count,
                            "template": t,
                            "needs": need,
                            "hall_cooling": hall.cooling,
                        },
                    )
                )
    return out
