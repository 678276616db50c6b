"""Bill of materials, cost and reliability of a cabled design (pandas).

``build(inputs, fabric, placement, cabling)`` returns one row per thing to buy (columns ``BOM_COLUMNS``),
in ``CATEGORIES`` order and, inside a category, in a fixed order (server model; switch network, tier
and model; catalog media order and length), so the table and its exports are byte-stable:

- **servers** per model; **gpus** per server model (a count only: their price is in the servers');
- **racks** per rack template (catalog ``rack_part.rack_usd`` each);
- **switches** per model and role (backend tiers, frontend, storage, out-of-band);
- **nics**: backend NIC ports per NIC option, at the option's ``price_usd_extra`` over ConnectX-7;
- **transceivers** per medium and module width: one module per optical link end, a module carrying up
  to ``ports_per_cage`` links on a switch and ``ports_per_module`` GPU links on a server (as counted by
  layout.media);
- **cables** per medium and stock length (the links, one cable each);
- **trays** per tray kind, in whole metres (``rack_part.tray_usd_per_m``, campus ducts included);
- **power**: the power chain's busways (runs and metres) per rating, tap-off boxes, UPS blocks and
  switchboards (layout/power_chain.py); **cooling**: the CDUs of liquid halls (layout/cooling.py).

Prices: a medium's catalog ``price_usd`` is one 400G link at its typical length: for copper the cable
assembly, for optics two module ends and the patch fibre. So a copper cable costs ``price_usd +
price_usd_per_m x stock length``; an optical cable ``price_usd_per_m x stock length``, and each optical
module ``ports x price_usd / 2`` (an end of a 400G link is half the link's optics; a twin-port module is
two ends). Fully used modules give every optical link exactly its catalog price.

``design_reliability(inputs, fabric, cabling)`` gives the design's own time to first job failure (its
node-side optical modules and their MTBFs, the seed's definition) and, under ``all_links``, from every
link of the backend fabric with its medium's MTBF (copper too), and the checkpoint-restart vs in-memory
loss of the site's ``[training]`` table, worst case and expected.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.fabric import NODE_ROLES, is_switch_role
from layout.kept import Kept
from layout.reliability import MINUTES_PER_YEAR, CheckpointLoss, checkpoint_loss, time_to_first_failure_min

if TYPE_CHECKING:
    from layout.cdus import LiquidLoop
    from layout.fabric import Fabric
    from layout.load import Inputs
    from layout.media import Cabling
    from layout.place import Placement
    from layout.power_chain import PowerChain

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
BOM_COLUMNS = ["category", "item", "part_id", "qty", "unit", "unit_price_usd", "extended_usd"]
NETWORK_ORDER = ("backend", "frontend", "storage", "oob")
ROLE_LABELS = {
    "leaf": "backend leaf", "spine": "backend spine", "core": "backend core", "super": "backend super-spine",
    "fe_leaf": "frontend leaf", "fe_spine": "frontend spine", "fe_core": "frontend core",
    "st_leaf": "storage leaf", "st_spine": "storage spine", "st_core": "storage core", "oob": "out-of-band",
    "oob_agg": "out-of-band aggregation",
}  # fmt: skip
TRAY_LABELS = {"row": "row tray", "cross": "cross-aisle tray", "trunk": "trunk tray", "riser": "riser",
               "duct": "campus duct", "user": "user-added tray"}  # fmt: skip


def build(
    inputs: Inputs,
    fabric: Fabric,
    placement: Placement,
    cabling: Cabling,
    chain: PowerChain | None = None,
    liquid: LiquidLoop | None = None,
    kept: Kept[tuple[Any, ...], FabricParts] | None = None,
) -> pd.DataFrame:
    """The bill of materials of a cabled design (columns ``BOM_COLUMNS``, see the module docstring);
    ``chain`` and ``liquid``: the power chain and the CDUs to buy, when designed; ``kept``: the parts
    of earlier runs' fabrics (:func:`fabric_parts`), None: made here."""
    from layout.cdus import cdu_parts
    from layout.power_chain import part_counts

    servers, nodes, switches = fabric_parts(inputs, fabric, kept)
    rows = [
        *servers,
        *nodes,
        *_racks(inputs, placement),
        *switches,
        *_transceivers(inputs, cabling),
        *_cables(inputs, cabling),
        *_trays(inputs, cabling),
        *(part_counts(inputs.catalog, chain) if chain is not None else []),
        *(cdu_parts(inputs.catalog, liquid) if liquid is not None else []),
    ]
    rows.sort(key=lambda r: CATEGORIES.index(r[0]))  # stable: keeps the order inside a category
    df = pd.DataFrame(rows, columns=["category", "item", "part_id", "qty", "unit", "unit_price_usd"])
    df["qty"] = df["qty"].astype(np.int64)
    df["unit_price_usd"] = df["unit_price_usd"].astype(float).round(2)
    df["extended_usd"] = (df["qty"] * df["unit_price_usd"]).round(2)
    return df[BOM_COLUMNS]


Row = tuple[str, str, str, int, str, float]  # category, item, part_id, qty, unit, unit_price_usd
FabricParts = tuple[list[Row], list[Row], list[Row]]  # servers (GPUs, NIC ports), nodes, switches
FABRIC_PARTS_KEPT = 4  # as many as the fabrics a DesignCache keeps


def fabric_parts_key(inputs: Inputs, fabric: Fabric) -> dict[str, Any]:
    """All the servers, nodes and switches to buy are made from, by name: the fabric (the very object:
    immutable; its devices and NIC) and the catalog (names and prices)."""
    return {"fabric": fabric, "catalog": inputs.catalog}


def fabric_parts(
    inputs: Inputs, fabric: Fabric, kept: Kept[tuple[Any, ...], FabricParts] | None
) -> FabricParts:
    """The BOM rows of the fabric's servers (with their GPUs and NIC ports), nodes and switches; from
    ``kept`` when an earlier run made them from the same :func:`fabric_parts_key` (an edit that leaves
    the cluster alone buys the same ones: ~17 ms of the campus's BOM), else made (and put there)."""
    if kept is None:
        return _servers(inputs, fabric), _nodes(inputs, fabric), _switches(inputs, fabric)
    key = tuple(fabric_parts_key(inputs, fabric).values())
    got = kept.get(key)
    if got is None:
        got = (_servers(inputs, fabric), _nodes(inputs, fabric), _switches(inputs, fabric))
    kept.put(key, got)
    return got


def _servers(inputs: Inputs, fabric: Fabric) -> list[Row]:
    """Servers, their GPUs and their backend NIC ports, per server model."""
    cat = inputs.catalog
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


def _nodes(inputs: Inputs, fabric: Fabric) -> list[Row]:
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
        spec = inputs.catalog.node[m]
        out.append(("nodes", f"{spec.name}, {label.get(w, w)}", m, int(n), "each", spec.price_usd))
    return out


def _racks(inputs: Inputs, placement: Placement) -> list[Row]:
    by = placement.racks["template"].astype(str).value_counts()
    price = inputs.catalog.rack_part.rack_usd
    return [("racks", inputs.templates[t].name, t, int(by[t]), "each", price) for t in sorted(by.index)]


def _switches(inputs: Inputs, fabric: Fabric) -> list[Row]:
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
        spec = inputs.catalog.switch[model]
        out.append(
            ("switches", f"{spec.name}, {ROLE_LABELS.get(role, role)}", model, n, "each", spec.price_usd)
        )
    return out


def _transceivers(inputs: Inputs, cabling: Cabling) -> list[Row]:
    out: list[Row] = []
    for media_id, ports, n in _module_counts(inputs, cabling):
        spec = inputs.catalog.media[media_id]
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


def _cables(inputs: Inputs, cabling: Cabling) -> list[Row]:
    """Per medium (catalog order), stock length and copper assembly: a breakout (one 800G cage to two
    400G cages) or a twin cable (two links, one twin-port cage at each end) is one part for two links,
    priced as the two links it carries."""
    media = inputs.catalog.media
    rank = {m: i for i, m in enumerate(media)}
    c = _cable_parts(cabling)
    keys = sorted(
        zip(
            c["media"].astype(str),
            c["stock_length_m"].astype(float),
            c["assembly"].astype(str),
            c["count"].astype(np.int64),
            strict=True,
        ),
        key=lambda k: (rank.get(k[0], len(rank)), k[1], ASSEMBLY_ORDER.index(k[2])),
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


def _cable_parts(cabling: Cabling) -> pd.DataFrame:
    """Cables to buy per (media, stock_length_m, assembly): ``cabling.cables`` with the copper links of
    breakouts and twin cables counted as one part per two links (assembly ``""``: one link, one part)."""
    c = cabling.cables.assign(assembly="")
    pm = getattr(cabling, "ports", None)  # hand-made cablings in tests may have no port map
    if pm is None:
        return c
    from layout.ports import ASSEMBLIES

    links = cabling.links
    pair_codes = [ASSEMBLIES.index(a) for a in ASSEMBLY_ITEMS]
    two = np.isin(pm.assembly, pair_codes)
    if not two.any():
        return c
    mcode = links["media"].cat.codes.to_numpy().astype(np.int64)[two]
    mm = np.round(links["stock_length_m"].to_numpy(float)[two] * 1000).astype(np.int64)
    key = (mcode * len(ASSEMBLIES) + pm.assembly[two]) * (1 << 32) + mm
    keys, counts = np.unique(key, return_counts=True)
    names = np.asarray(links["media"].cat.categories, dtype=object)
    n = pd.DataFrame(
        {
            "media": names[(keys >> 32) // len(ASSEMBLIES)],
            "stock_length_m": (keys & ((1 << 32) - 1)) / 1000.0,
            "assembly": np.array(ASSEMBLIES, dtype=object)[(keys >> 32) % len(ASSEMBLIES)],
            "links": counts.astype(np.int64),
        }
    )
    per_link = c.set_index(["media", "stock_length_m"])["count"].astype(np.int64)
    taken = n.groupby(["media", "stock_length_m"])["links"].sum()
    left = per_link.sub(taken, fill_value=0).astype(np.int64)
    single: pd.DataFrame = left[left > 0].reset_index(name="count").assign(assembly="")
    n["count"] = -(-n.pop("links") // 2)
    return pd.concat([single, n], ignore_index=True)


def _trays(inputs: Inputs, cabling: Cabling) -> list[Row]:
    """Per tray kind, whole metres."""
    price = inputs.catalog.rack_part.tray_usd_per_m
    return [
        ("trays", TRAY_LABELS.get(k, k), f"tray/{k}", math.ceil(m - 1e-9), "m", price)
        for k, m in cabling.trays.tray_m().items()
        if m > 0
    ]


def _module_counts(inputs: Inputs, cabling: Cabling) -> list[tuple[str, int, int]]:
    """(medium, links per module, modules) from ``cabling.modules``, in catalog media order."""
    cat = inputs.catalog
    m = cabling.modules
    if m.empty:
        return []
    grouped = pd.DataFrame(
        {"media": m["media"].astype(str), "per": m["links_per_module"], "n": m["modules"].to_numpy(np.int64)}
    )
    totals = grouped.groupby(["media", "per"], sort=True)["n"].sum()
    rank = {k: i for i, k in enumerate(cat.media)}
    keys = sorted(totals.index, key=lambda k: (rank.get(k[0], len(rank)), k[1]))
    return [(str(k[0]), int(k[1]), int(totals[k])) for k in keys]


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


def design_reliability(inputs: Inputs, fabric: Fabric, cabling: Cabling) -> dict[str, Any]:
    """Time to the first job failure from the design's node-side optical modules, and what a failure
    costs with checkpoint restart vs in-memory recovery (the site's ``[training]`` table).

    A node-side module is a server-end transceiver on a GPU-to-leaf link (Cedar-7: one dual-port module
    for two links). Its MTBF: ``cluster.link_mtbf_years`` when the site sets it, else the NIC's own
    ``link_mtbf_years`` (Cedar-7: 4 years per dual-port link), else the medium's ``mtbf_years``.
    """
    cat = inputs.catalog
    cluster = inputs.site.cluster
    nic = cat.nic[fabric.nic]
    m = cabling.modules
    node = m.loc[(m["end"] == "server") & m["backend"]] if not m.empty else m
    by_media = node.groupby("media", sort=True).agg(links=("links", "sum"), modules=("modules", "sum"))
    if "link_mtbf_years" in cluster.model_fields_set:
        source, fixed = "site", cluster.link_mtbf_years
    elif nic.link_mtbf_years is not None:
        source, fixed = "nic", nic.link_mtbf_years
    else:
        source, fixed = "media", None
    mtbf = np.array(
        [fixed if fixed is not None else cat.media[str(k)].mtbf_years for k in by_media.index], float
    )
    modules = by_media["modules"].to_numpy(np.int64)
    ttff = time_to_first_failure_min(mtbf, modules) if len(modules) else math.inf
    srv = cat.server[fabric.server]
    tr = inputs.site.training
    loss = checkpoint_loss(
        fabric.gpus, tr.step_s, tr.checkpoint_every_steps, tr.hbm_gb, srv.backend_port_gbps
    )
    per_day = 0.0 if math.isinf(ttff) else 24 * 60 / ttff
    every = _all_links(inputs, cabling, by_media, mtbf, loss)
    return {
        "time_to_first_failure_min": None if math.isinf(ttff) else round(ttff, 2),
        "failures_per_day": round(per_day, 3),
        "node_optical_links": int(by_media["links"].sum()),
        "node_optical_modules": int(modules.sum()),
        "mtbf_source": source,
        "by_media": {
            str(k): {"links": int(r.links), "modules": int(r.modules), "mtbf_years": float(y)}
            for (k, r), y in zip(by_media.iterrows(), mtbf, strict=True)
        },
        "checkpoint": {
            "gpus": fabric.gpus,
            "step_s": tr.step_s,
            "checkpoint_every_steps": tr.checkpoint_every_steps,
            "hbm_gb": tr.hbm_gb,
            "link_gbps": srv.backend_port_gbps,
            "restart_gpu_days": round(loss.restart_gpu_days, 3),
            "in_memory_gpu_days": round(loss.in_memory_gpu_days, 3),
            "in_memory_step_gpu_days": round(loss.in_memory_step_gpu_days, 3),
            "in_memory_copy_gpu_days": round(loss.in_memory_copy_gpu_days, 3),
            "copy_s": round(loss.copy_s, 3),
            "saved_gpu_days": round(loss.saved_gpu_days, 3),
            "restart_gpu_days_per_day": round(loss.restart_gpu_days * per_day, 3),
            "in_memory_gpu_days_per_day": round(loss.in_memory_gpu_days * per_day, 3),
            "restart_expected_gpu_days": round(loss.restart_expected_gpu_days, 3),
            "in_memory_expected_gpu_days": round(loss.in_memory_expected_gpu_days, 3),
        },
        "all_links": every,
    }


def _all_links(
    inputs: Inputs, cabling: Cabling, node: pd.DataFrame, node_mtbf: np.ndarray, loss: CheckpointLoss
) -> dict[str, Any]:
    """Time to the first failure of any backend link, each with its medium's MTBF: the node-side
    optical modules as in the seed's figure (``node``: links and modules per medium at ``node_mtbf``),
    and every other backend link (switch-to-switch optics, copper GPU jumpers, DAC and AEC) at its
    medium's ``mtbf_years``; and what the failures cost per day, worst case and expected."""
    cat = inputs.catalog
    links = cabling.links
    code, uniq = pd.factorize(links["media"])  # category codes for the cabling's table: no string copy
    ids = [str(u) for u in uniq]
    known = np.array([u in cat.media for u in ids] + [False])
    optical = np.array([u in cat.media and cat.media[u].optical for u in ids] + [False])
    code = np.where(code >= 0, code, len(ids))
    be = (links["network"] == "backend").to_numpy() & known[code]
    node_link = optical[code] & (links["kind"] == "gpu_leaf").to_numpy()
    per = np.bincount(code[be & ~node_link], minlength=len(ids) + 1)
    rest = {ids[i]: int(per[i]) for i in np.flatnonzero(per[: len(ids)])}
    order = sorted(rest, key=list(cat.media).index)
    mtbf = np.r_[node_mtbf, [cat.media[k].mtbf_years for k in order]].astype(float)
    units = np.r_[node["modules"].to_numpy(np.int64), [rest[k] for k in order]].astype(np.int64)
    ttff = time_to_first_failure_min(mtbf, units) if units.sum() else math.inf
    per_day = 0.0 if math.isinf(ttff) else 24 * 60 / ttff
    node_rate = float(np.sum(node["modules"].to_numpy(float) / node_mtbf)) if len(node) else 0.0
    return {
        "network": "backend",
        "links": int(be.sum()),
        "time_to_first_failure_min": None if math.isinf(ttff) else round(ttff, 2),
        "failures_per_day": round(per_day, 3),
        "node_side": {
            "links": int(node["links"].sum()),
            "modules": int(node["modules"].sum()),
            "failures_per_day": round(node_rate * 24 * 60 / MINUTES_PER_YEAR, 3),
        },
        "by_media": {k: {"links": int(rest[k]), "mtbf_years": float(cat.media[k].mtbf_years)} for k in order},
        "restart_gpu_days_per_day": {
            "worst": round(loss.restart_gpu_days * per_day, 3),
            "expected": round(loss.restart_expected_gpu_days * per_day, 3),
        },
        "in_memory_gpu_days_per_day": {
            "worst": round(loss.in_memory_gpu_days * per_day, 3),
            "expected": round(loss.in_memory_expected_gpu_days * per_day, 3),
        },
    }
