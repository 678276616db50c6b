"""Bill of materials and cost of a cabled design (pandas).

``build(BomInput.of(inputs), fabric, placement, cabling)`` returns one row per thing to buy (columns ``BOM_COLUMNS``),
in ``CATEGORIES`` order and, inside a category, in a fixed order (server model; switch network, tier
and model; catalog media order and length), so the table and its exports are byte-stable:

- **servers** per model; **gpus** per server model (a count only: their price is in the servers');
- **racks** per rack template (catalog ``rack_part.rack_usd`` each);
- **switches** per model and role (backend tiers, frontend, storage, out-of-band);
- **nics**: backend NIC ports per NIC option, at the option's ``price_usd_extra`` over ConnectX-7;
- **transceivers** per medium and module width: one module per optical link end, a module carrying up
  to ``ports_per_cage`` links on a switch and ``ports_per_module`` GPU links on a server (as counted by
  layout.cable.media);
- **cables** per medium and stock length (the links, one cable each), and the cable plant's trunks,
  panels, cassettes and patch cords (layout/cable/plant.py) for the links that run through it;
- **trays** per tray kind, in whole metres (``rack_part.tray_usd_per_m``, campus ducts included);
- **power**: the power chain's busways (runs and metres) per rating, tap-off boxes, rack PDUs, UPS
  blocks and switchboards (layout/power/chain.py), and the PSU cords of every device (:func:`power_cords`); **cooling**: the CDUs of liquid halls (layout/power/cooling.py).

Prices: a medium's catalog ``price_usd`` is one 400G link at its typical length: for copper the cable
assembly, for optics two module ends and the patch fibre. So a copper cable costs ``price_usd +
price_usd_per_m x stock length``; an optical cable ``price_usd_per_m x stock length``, and each optical
module ``ports x price_usd / 2`` (an end of a 400G link is half the link's optics; a twin-port module is
two ends). Fully used modules give every optical link exactly its catalog price.

The design's reliability figures (time to the first job failure, checkpoint losses) are in
layout/reliability.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.fabric import NODE_ROLES, is_switch_role

if TYPE_CHECKING:
    from layout.cable import Cabling
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.memo import Scope
    from layout.model import Catalog
    from layout.place import Placement
    from layout.power.cdus import LiquidLoop
    from layout.power.chain import PowerChain

CATEGORIES = (
    "servers",
    "gpus",
    "nodes",
    "racks",
    "switches",
    "nics",
    "transceivers",
    "cables",
    "trays",
    "power",
    "cooling",
)
NETWORK_CATEGORIES = ("switches", "nics", "transceivers", "cables", "trays")  # the network's cost
BOM_COLUMNS = [
    "category", "item", "part_id", "qty", "unit", "unit_price_usd", "extended_usd", "part_number",
    "part_number_source", "spares", "spares_usd",
]  # fmt: skip
DCL_PREFIX = "DCL-"  # a part the catalog gives no maker number: dclayout's own, from its id
NETWORK_ORDER = ("backend", "frontend", "storage", "oob")
ROLE_LABELS = {
    "leaf": "backend leaf", "spine": "backend spine", "core": "backend core", "super": "backend super-spine",
    "fe_leaf": "frontend leaf", "fe_spine": "frontend spine", "fe_core": "frontend core",
    "st_leaf": "storage leaf", "st_spine": "storage spine", "st_core": "storage core", "oob": "out-of-band",
    "oob_agg": "out-of-band aggregation",
}  # fmt: skip
TRAY_LABELS = {"row": "row tray", "cross": "cross-aisle tray", "trunk": "trunk tray", "riser": "riser",
               "duct": "campus duct", "user": "user-added tray"}  # fmt: skip


@dataclass(frozen=True, eq=False)
class BomInput:
    """What the bill of materials reads of the inputs: the catalog (parts, names, prices) and each rack
    template's name (the racks' rows)."""

    catalog: Catalog
    rack_names: dict[str, str]  # rack template id -> its name

    @classmethod
    def of(cls, inputs: Inputs) -> BomInput:
        return cls(inputs.catalog, {t: tpl.name for t, tpl in inputs.templates.items()})


def build(
    inp: BomInput,
    fabric: Fabric,
    placement: Placement,
    cabling: Cabling,
    chain: PowerChain | None = None,
    liquid: LiquidLoop | None = None,
    scope: Scope | None = None,
) -> pd.DataFrame:
    """The bill of materials of a cabled design (columns ``BOM_COLUMNS``, see the module docstring);
    ``chain`` and ``liquid``: the power chain and the CDUs to buy, when designed. ``scope``: a memo and
    the fabric's token (layout/memo.py), which keeps the fabric's servers, nodes and switches (an edit
    that leaves the cluster alone buys the same ones)."""
    from layout.power.cdus import cdu_parts, rear_door_parts
    from layout.power.chain import part_counts

    servers, nodes, switches = (
        fabric_parts(inp.catalog, fabric)
        if scope is None
        else scope.take("bom.fabric_parts", (inp.catalog,), lambda: fabric_parts(inp.catalog, fabric))
    )
    rows = [
        *servers,
        *nodes,
        *_racks(inp, placement),
        *switches,
        *cabling_parts(inp.catalog, cabling),
        *(part_counts(inp.catalog, chain) if chain is not None else []),
        *power_cords(inp.catalog, fabric),
        *(cdu_parts(inp.catalog, liquid) if liquid is not None else []),
        *(rear_door_parts(inp.catalog, liquid) if liquid is not None else []),
    ]
    rows.sort(key=lambda r: CATEGORIES.index(r[0]))  # stable: keeps the order inside a category
    df = pd.DataFrame(rows, columns=["category", "item", "part_id", "qty", "unit", "unit_price_usd"])
    df["qty"] = df["qty"].astype(np.int64)
    df["unit_price_usd"] = df["unit_price_usd"].astype(float).round(2)
    df["extended_usd"] = (df["qty"] * df["unit_price_usd"]).round(2)
    return orderable(inp.catalog, df)[BOM_COLUMNS]


def orderable(catalog: Catalog, df: pd.DataFrame) -> pd.DataFrame:
    """The lines as procurement orders them: each part's maker number where the catalog's
    ``[part_number]`` gives one (with its source), else ``DCL-`` and its id; and the spares of its
    category (the catalog's ``[spares]`` share of the quantity, rounded up per line), priced. Spares are
    a line's own columns, outside the design's capital cost."""
    ids = df["part_id"].astype(str)
    known = catalog.part_number
    df["part_number"] = [
        known[i].number if i in known else DCL_PREFIX + i.upper().replace("/", "-") for i in ids
    ]
    df["part_number_source"] = [
        known[i].source if i in known else "dclayout id (no maker number)" for i in ids
    ]
    share = df["category"].map(catalog.spares).fillna(0.0).to_numpy(float)
    # rounded up, after dropping float noise (2 % of 150 is 3, not 4)
    spares = np.ceil(np.round(df["qty"].to_numpy(float) * share, 6)).astype(np.int64)
    df["spares"] = spares
    df["spares_usd"] = (spares * df["unit_price_usd"].to_numpy(float)).round(2)
    return df


Row = tuple[str, str, str, int, str, float]  # category, item, part_id, qty, unit, unit_price_usd
FabricParts = tuple[list[Row], list[Row], list[Row]]  # servers (GPUs, NIC ports), nodes, switches


def fabric_parts(catalog: Catalog, fabric: Fabric) -> FabricParts:
    """The BOM rows of the fabric's servers (with their GPUs and NIC ports), nodes and switches."""
    return _servers(catalog, fabric), _nodes(catalog, fabric), _switches(catalog, fabric)


def power_cords(catalog: Catalog, fabric: Fabric) -> list[Row]:
    """BOM rows of category ``power``: the PSU cords of every server, node and switch to its rack PDUs
    (layout/power/loads.py device_cords: each model's ``power_cords``, else 2, one per side), per cord
    form, in catalog order; none without a ``[power_cord]`` in the catalog."""
    from layout.power.loads import CORD_FORMS, device_cords

    if not catalog.power_cord:
        return []
    total = device_cords(catalog, fabric).sum(axis=0)
    need = {form: int(total[k]) for k, form in enumerate(CORD_FORMS)}
    return [
        ("power", cord.name, f"power-cord/{form}", need[form], "each", cord.price_usd)
        for form, cord in catalog.power_cord.items()
        if need.get(form, 0) > 0
    ]


def cabling_parts(catalog: Catalog, cabling: Cabling) -> list[Row]:
    """The BOM rows of the cabling's transceivers, cables, cable plant and trays."""
    return [
        *_transceivers(catalog, cabling),
        *_cables(catalog, cabling),
        *_plant(catalog, cabling),
        *_trays(catalog, cabling),
    ]


def _servers(catalog: Catalog, fabric: Fabric) -> list[Row]:
    """Servers, their GPUs and their backend NIC ports, per server model."""
    cat = catalog
    dev = fabric.devices
    models, counts = np.unique(
        dev.loc[dev["role"] == "server", "model"].to_numpy().astype(str), return_counts=True
    )
    servers, gpus, nics = [], [], []
    nic = cat.nic[fabric.nic]
    for m, n in zip(models.tolist(), counts.tolist(), strict=True):
        spec = cat.server[m]
        servers.append(("servers", spec.name, m, n, "each", spec.price_usd))
        gpus.append(
            ("gpus", f"GPU in {spec.name} (priced with the server)", f"{m}/gpu", n * spec.gpus, "each", 0.0)
        )
        item = f"{nic.name}, backend port in {m}"
        nics.append(("nics", item, fabric.nic, n * spec.backend_ports, "port", nic.price_usd_extra))
    return servers + gpus + nics


def _nodes(catalog: Catalog, fabric: Fabric) -> list[Row]:
    """Storage servers and CPU nodes (head, login, management, UFM), per device name prefix and model."""
    dev = fabric.devices
    nodes = dev.loc[dev["role"].isin(NODE_ROLES), ["device_id", "model"]]
    if not len(nodes):
        return []
    what = [str(i).split("-")[0] for i in nodes["device_id"]]
    pairs = sorted(zip(what, [str(m) for m in nodes["model"]], strict=True))
    counts: dict[tuple[str, str], int] = {}
    for pair in pairs:
        counts[pair] = counts.get(pair, 0) + 1
    label = {"stor": "storage server", "head": "head node", "login": "login node", "mgmt": "management node",
             "ufm": "fabric manager (UFM)"}  # fmt: skip
    out: list[Row] = []
    for (w, m), n in counts.items():
        spec = catalog.node[m]
        out.append(("nodes", f"{spec.name}, {label.get(w, w)}", m, int(n), "each", spec.price_usd))
    return out


def _racks(inp: BomInput, placement: Placement) -> list[Row]:
    code, names = pd.factorize(placement.racks["template"].astype(str))
    by = dict(zip([str(t) for t in names], np.bincount(code, minlength=len(names)).tolist(), strict=True))
    price = inp.catalog.rack_part.rack_usd
    return [("racks", inp.rack_names[t], t, int(by[t]), "each", price) for t in sorted(by)]


def _switches(catalog: Catalog, fabric: Fabric) -> list[Row]:
    """Per network (NETWORK_ORDER), tier, role and model."""
    dev = fabric.devices
    sw = dev.loc[is_switch_role(dev["role"].to_numpy()), ["network", "tier", "role", "model"]].astype(
        {"network": str, "role": str, "model": str}
    )
    counts = sw.groupby(["network", "tier", "role", "model"], sort=True).size().reset_index(name="n")
    rank = {n: i for i, n in enumerate(NETWORK_ORDER)}
    counts["rank"] = [rank.get(n, len(rank)) for n in counts["network"]]
    counts = counts.sort_values(["rank", "tier", "role", "model"], kind="stable")
    out: list[Row] = []
    for role, model, n in zip(
        counts["role"].tolist(), counts["model"].tolist(), counts["n"].tolist(), strict=True
    ):
        spec = catalog.switch[model]
        out.append(
            ("switches", f"{spec.name}, {ROLE_LABELS.get(role, role)}", model, n, "each", spec.price_usd)
        )
    return out


def _transceivers(catalog: Catalog, cabling: Cabling) -> list[Row]:
    out: list[Row] = []
    for media_id, ports, n in _module_counts(catalog, cabling):
        spec = catalog.media[media_id]
        width = f"{ports}-port module" if ports > 1 else "module"
        out.append(
            (
                "transceivers",
                f"{spec.name}, {width}",
                f"{media_id}/x{ports}",
                n,
                "each",
                ports * spec.price_usd / 2,
            )
        )
    return out


def _cables(catalog: Catalog, cabling: Cabling) -> list[Row]:
    """Per medium (catalog order), stock length and copper assembly: a breakout (one 800G cage to two
    400G cages) or a twin cable (two links, one twin-port cage at each end) is one part for two links,
    priced as the two links it carries."""
    media = catalog.media
    rank = {m: i for i, m in enumerate(media)}
    keys = sorted(
        _cable_parts(cabling), key=lambda k: (rank.get(k[0], len(rank)), k[1], ASSEMBLY_ORDER.index(k[2]))
    )
    out: list[Row] = []
    for media_id, length, assembly, n in keys:
        spec = media[media_id]
        price = (0.0 if spec.optical else spec.price_usd) + spec.price_usd_per_m * length
        what = "fibre" if spec.optical else "cable"
        if assembly in ASSEMBLY_ITEMS:
            item = f"{spec.name} {ASSEMBLY_ITEMS[assembly]}, {length:g} m"
            out.append(("cables", item, f"{media_id}/{assembly}/{length:g}m", int(n), "each", 2 * price))
        else:
            item = f"{spec.name} {what}, {length:g} m"
            out.append(("cables", item, f"{media_id}/{length:g}m", int(n), "each", price))
    return out


ASSEMBLY_ORDER = ("", "breakout", "twin")
ASSEMBLY_ITEMS = {"breakout": "breakout cable (800G to 2 x 400G)", "twin": "twin-port cable (2 x 400G)"}


def _cable_parts(cabling: Cabling) -> list[tuple[str, float, str, int]]:
    """Cables to buy as (media, stock_length_m, assembly, count): ``cabling.cables`` with the copper
    links of breakouts and twin cables counted as one part per two links (assembly ``""``: one link, one
    part), in no particular order (``_cables`` sorts them; each key is there once)."""
    c = cabling.cables
    per_link = list(
        zip(
            c["media"].astype(str).tolist(),
            c["stock_length_m"].astype(float).tolist(),
            c["count"].astype(np.int64).tolist(),
            strict=True,
        )
    )
    pm = getattr(cabling, "ports", None)  # hand-made cablings in tests may have no port map
    if pm is None:
        return [(m, length, "", n) for m, length, n in per_link]
    from layout.cable.cages import ASSEMBLIES

    links = cabling.links
    pair_codes = [ASSEMBLIES.index(a) for a in ASSEMBLY_ITEMS]
    two = pm.assembly == pair_codes[0]  # two compares of int8 codes: quicker than np.isin
    for other in pair_codes[1:]:
        two |= pm.assembly == other
    if not two.any():
        return [(m, length, "", n) for m, length, n in per_link]
    mcode = links["media"].cat.codes.to_numpy().astype(np.int64)[two]
    mm = np.round(links["stock_length_m"].to_numpy(float)[two] * 1000).astype(np.int64)
    key = (mcode * len(ASSEMBLIES) + pm.assembly[two]) * (1 << 32) + mm
    keys, counts = np.unique(key, return_counts=True)
    names = np.asarray(links["media"].cat.categories, dtype=object)
    pairs = list(
        zip(
            [str(x) for x in names[(keys >> 32) // len(ASSEMBLIES)]],
            ((keys & ((1 << 32) - 1)) / 1000.0).tolist(),
            [ASSEMBLIES[i] for i in ((keys >> 32) % len(ASSEMBLIES)).tolist()],
            counts.tolist(),
            strict=True,
        )
    )
    taken: dict[tuple[str, float], int] = {}
    for m, length, _, n in pairs:
        taken[(m, length)] = taken.get((m, length), 0) + n
    single = [(m, length, "", n - taken.get((m, length), 0)) for m, length, n in per_link]
    return [p for p in single if p[3] > 0] + [(m, length, a, -(-n // 2)) for m, length, a, n in pairs]


FIBRE_NAMES = {"om3": "OM3", "om4": "OM4", "os2": "OS2"}


def _plant(catalog: Catalog, cabling: Cabling) -> list[Row]:
    """The cable plant's parts (layout/cable/plant.py), in the cables category: trunks per fibre,
    connector and size (assemblies, and their cable in metres), 1U panels, MPO-LC cassettes and patch
    cords per connector, fibre and stock length. Prices: catalog ``[plant]``."""
    plant = getattr(cabling, "plant", None)
    if plant is None or not len(plant.trunks):
        return []
    p = catalog.plant
    out: list[Row] = []
    t = plant.trunks
    by = t.groupby(["fibre", "connector", "fibres"], sort=True).agg(
        n=("trunk", "size"), m=("length_m", "sum")
    )
    for (fibre, conn, fibres), r in by.iterrows():
        f = FIBRE_NAMES.get(str(fibre), str(fibre))
        end = "male-male" if conn == "mpo" else "female-female"
        name = f"MPO trunk, {f}, {int(fibres)} fibres, Type B, {end}"
        part = f"trunk/{fibre}/{conn}/{int(fibres)}f"
        out.append(
            ("cables", f"{name}, terminated", part, int(r["n"]), "each", int(fibres) * p.trunk_usd_per_fibre)
        )
        out.append(
            (
                "cables",
                f"{name}, cable",
                f"{part}/m",
                math.ceil(float(r["m"]) - 1e-9),
                "m",
                int(fibres) * p.trunk_usd_per_fibre_m,
            )
        )
    panels = int(plant.panels["panels"].sum())
    if panels:
        out.append(
            ("cables", f"patch panel 1U, {p.panel_fibres} fibres", "panel/1u", panels, "each", p.panel_usd)
        )
    cabinets = int(plant.panels["cabinets"].sum())
    if cabinets:
        item = f"fibre cabinet for {p.cabinet_ru} x 1U panels, {p.cabinet_width_mm:g} mm"
        out.append(("cables", item, f"cabinet/fibre/{p.cabinet_ru}u", cabinets, "each", p.cabinet_usd))
    cassettes = int(plant.panels["cassettes"].sum())
    if cassettes:
        item = f"MPO-{p.cassette_fibres} to {p.cassette_fibres // 2} x LC duplex cassette, Type B"
        out.append(("cables", item, f"cassette/mpo{p.cassette_fibres}-lc", cassettes, "each", p.cassette_usd))
    for r in plant.cords.itertuples(index=False):
        f = FIBRE_NAMES.get(str(r.fibre), str(r.fibre))
        mpo = r.connector == "mpo"
        item = f"{'MPO female-female' if mpo else 'LC duplex A-B'} patch cord, {f}, {r.length_m:g} m"
        price = p.cord_usd * (p.mpo_cord_factor if mpo else 1.0) + p.cord_usd_per_m * float(r.length_m)
        out.append(
            ("cables", item, f"cord/{r.connector}/{r.fibre}/{r.length_m:g}m", int(r.count), "each", price)
        )
    return out


def _trays(catalog: Catalog, cabling: Cabling) -> list[Row]:
    """Per tray kind, whole metres."""
    price = catalog.rack_part.tray_usd_per_m
    return [
        ("trays", TRAY_LABELS.get(k, k), f"tray/{k}", math.ceil(m - 1e-9), "m", price)
        for k, m in cabling.trays.tray_m().items()
        if m > 0
    ]


def _module_counts(catalog: Catalog, cabling: Cabling) -> list[tuple[str, int, int]]:
    """(medium, links per module, modules) from ``cabling.modules``, in catalog media order."""
    cat = catalog
    m = cabling.modules
    if m.empty:
        return []
    code, names = pd.factorize(m["media"].astype(str))  # no medium (NaN): -1, left out as groupby does
    has = code >= 0
    per = m["links_per_module"].to_numpy(np.int64)[has]
    top = int(per.max()) + 1 if len(per) else 1
    key = code[has].astype(np.int64) * top + per  # a few dozen distinct values: counted, not sorted
    size = len(names) * top
    keys = np.flatnonzero(np.bincount(key, minlength=size))
    n = np.bincount(key, weights=m["modules"].to_numpy(np.int64)[has], minlength=size)[keys]
    totals = {
        (str(names[k // top]), int(k % top)): int(v) for k, v in zip(keys.tolist(), n.tolist(), strict=True)
    }
    rank = {k: i for i, k in enumerate(cat.media)}
    order = sorted(totals, key=lambda k: (rank.get(k[0], len(rank)), k[1]))
    return [(k[0], k[1], totals[k]) for k in order]


def totals(df: pd.DataFrame) -> dict[str, Any]:
    """``{"total", "network", "by_category"}`` in USD (every category of CATEGORIES, zero if absent);
    ``network`` is NETWORK_CATEGORIES together."""
    by = df.groupby("category", sort=False)["extended_usd"].sum()
    by_category = {c: round(float(by.get(c, 0.0)), 2) for c in CATEGORIES}
    return {
        "total": round(float(df["extended_usd"].sum()), 2),
        "network": round(sum(by_category[c] for c in NETWORK_CATEGORIES), 2),
        "by_category": by_category,
    }
