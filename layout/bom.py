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

Kept by a front end's DesignCache: the rows of each fabric (:func:`fabric_parts_key`) and of each
cabling (:func:`cabling_parts_key`), and the reliability figures (:func:`reliability_key`); an edit
that re-cables nothing makes only the racks', power and cooling rows again.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.fabric import NODE_ROLES, is_switch_role
from layout.kept import Kept, Same
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
    kept_cabling: Kept[tuple[Any, ...], list[Row]] | None = None,
) -> pd.DataFrame:
    """The bill of materials of a cabled design (columns ``BOM_COLUMNS``, see the module docstring);
    ``chain`` and ``liquid``: the power chain and the CDUs to buy, when designed; ``kept``: the parts
    of earlier runs' fabrics (:func:`fabric_parts`), ``kept_cabling``: of their cablings
    (:func:`cabling_parts`); None: made here."""
    from layout.cdus import cdu_parts
    from layout.power_chain import part_counts

    servers, nodes, switches = fabric_parts(inputs, fabric, kept)
    rows = [
        *servers,
        *nodes,
        *_racks(inputs, placement),
        *switches,
        *cabling_parts(inputs, cabling, kept_cabling),
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
    return kept.take(
        key, lambda: (_servers(inputs, fabric), _nodes(inputs, fabric), _switches(inputs, fabric))
    )


CABLING_PARTS_KEPT = 2  # the last cabling and the one before (an edit, then undo)


def cabling_parts_key(inputs: Inputs, cabling: Cabling) -> dict[str, Any]:
    """All the transceivers, cables and trays to buy are made from, by name: the cabling (the very
    object: a Cabling is never changed; the CableCache hands the same one to every run whose placement
    and trays it was made for) and the catalog (names, prices, media order)."""
    return {"cabling": Same(cabling), "catalog": inputs.catalog}


def cabling_parts(
    inputs: Inputs, cabling: Cabling, kept: Kept[tuple[Any, ...], list[Row]] | None
) -> list[Row]:
    """The BOM rows of the cabling's transceivers, cables and trays; from ``kept`` when an earlier run
    made them from the same :func:`cabling_parts_key` (an edit that re-cables nothing: a hall's power
    budget, cooling or a max kW that keeps its racks), else made (and put there)."""
    if kept is None:
        return [*_transceivers(inputs, cabling), *_cables(inputs, cabling), *_trays(inputs, cabling)]
    key = tuple(cabling_parts_key(inputs, cabling).values())
    return kept.take(
        key, lambda: [*_transceivers(inputs, cabling), *_cables(inputs, cabling), *_trays(inputs, cabling)]
    )


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
    code, names = pd.factorize(placement.racks["template"].astype(str))
    by = dict(zip([str(t) for t in names], np.bincount(code, minlength=len(names)).tolist(), strict=True))
    price = inputs.catalog.rack_part.rack_usd
    return [("racks", inputs.templates[t].name, t, int(by[t]), "each", price) for t in sorted(by)]


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
    from layout.ports import ASSEMBLIES

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


RELIABILITY_KEPT = 2  # the last cabling's figures and the one before (an edit, then undo)


def reliability_key(inputs: Inputs, fabric: Fabric, cabling: Cabling) -> dict[str, Any]:
    """All :func:`design_reliability` reads, by name: the fabric (the very object: its NIC, server and
    GPUs), the cabling (the very object, never changed: its modules and links), the catalog (MTBFs, the
    NIC, the server's link speed), the cluster's ``link_mtbf_years`` with whether the site gives it, and
    the site's ``[training]`` table. Not the halls: an edit that re-cables nothing reuses the figures."""
    cluster = inputs.site.cluster
    return {
        "fabric": fabric,
        "cabling": Same(cabling),
        "catalog": inputs.catalog,
        "link_mtbf_years": ("link_mtbf_years" in cluster.model_fields_set, cluster.link_mtbf_years),
        "training": inputs.site.training,
    }


def design_reliability(
    inputs: Inputs,
    fabric: Fabric,
    cabling: Cabling,
    kept: Kept[tuple[Any, ...], dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Time to the first job failure from the design's node-side optical modules, and what a failure
    costs with checkpoint restart vs in-memory recovery (the site's ``[training]`` table).

    A node-side module is a server-end transceiver on a GPU-to-leaf link (Cedar-7: one dual-port module
    for two links). Its MTBF: ``cluster.link_mtbf_years`` when the site sets it, else the NIC's own
    ``link_mtbf_years`` (Cedar-7: 4 years per dual-port link), else the medium's ``mtbf_years``.

    ``kept``: the figures of earlier runs by :func:`reliability_key` (a copy is returned: the caller
    may change its own); None: worked out here.
    """
    if kept is None:
        return _reliability(inputs, fabric, cabling)
    key = tuple(reliability_key(inputs, fabric, cabling).values())
    return copy.deepcopy(kept.take(key, lambda: _reliability(inputs, fabric, cabling)))


def _reliability(inputs: Inputs, fabric: Fabric, cabling: Cabling) -> dict[str, Any]:
    cat = inputs.catalog
    cluster = inputs.site.cluster
    nic = cat.nic[fabric.nic]
    by_media = _node_modules(cabling.modules)
    if "link_mtbf_years" in cluster.model_fields_set:
        source, fixed = "site", cluster.link_mtbf_years
    elif nic.link_mtbf_years is not None:
        source, fixed = "nic", nic.link_mtbf_years
    else:
        source, fixed = "media", None
    mtbf = np.array([fixed if fixed is not None else cat.media[k].mtbf_years for k in by_media.media], float)
    modules = by_media.modules
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
        "node_optical_links": int(by_media.links.sum()),
        "node_optical_modules": int(modules.sum()),
        "mtbf_source": source,
        "by_media": {
            k: {"links": int(n), "modules": int(u), "mtbf_years": float(y)}
            for k, n, u, y in zip(by_media.media, by_media.links, by_media.modules, mtbf, strict=True)
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


@dataclass(frozen=True)
class NodeModules:
    """The node-side optical modules per medium (sorted by name): links and modules of each."""

    media: list[str]
    links: np.ndarray  # int64
    modules: np.ndarray  # int64


def _node_modules(m: pd.DataFrame) -> NodeModules:
    """``cabling.modules``' server-end backend rows summed per medium."""
    if m.empty:
        return NodeModules([], np.zeros(0, np.int64), np.zeros(0, np.int64))
    node = (m["end"] == "server").to_numpy(bool) & m["backend"].to_numpy(bool)
    code, names = pd.factorize(m["media"], sort=True)  # sorted, as groupby sorts; no medium (-1) left out
    code = code[node]
    has = code >= 0
    code = code[has]
    rows = np.bincount(code, minlength=len(names)) > 0  # the media of the node-side rows
    links = np.bincount(code, m["links"].to_numpy(np.int64)[node][has], len(names))[rows].astype(np.int64)
    modules = np.bincount(code, m["modules"].to_numpy(np.int64)[node][has], len(names))[rows].astype(np.int64)
    return NodeModules([str(x) for x in np.asarray(names, dtype=object)[rows]], links, modules)


def _equals(column: pd.Series, value: str) -> np.ndarray:
    """``column == value`` as a bool array; a categorical column by its codes (no strings)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        cats = column.cat.categories
        if value not in cats:
            return np.zeros(len(column), bool)
        return np.asarray(column.cat.codes.to_numpy() == cats.get_loc(value))
    return np.asarray((column == value).to_numpy(bool))


def _all_links(
    inputs: Inputs, cabling: Cabling, node: NodeModules, node_mtbf: np.ndarray, loss: CheckpointLoss
) -> dict[str, Any]:
    """Time to the first failure of any backend link, each with its medium's MTBF: the node-side
    optical modules as in the seed's figure (``node``: links and modules per medium at ``node_mtbf``),
    and every other backend link (switch-to-switch optics, copper GPU jumpers, DAC and AEC) at its
    medium's ``mtbf_years``; and what the failures cost per day, worst case and expected."""
    cat = inputs.catalog
    links = cabling.links
    media = links["media"]
    if isinstance(media.dtype, pd.CategoricalDtype):  # the cabling's table: its codes, no strings
        code, ids = media.cat.codes.to_numpy().astype(np.int64), [str(u) for u in media.cat.categories]
    else:
        code, uniq = pd.factorize(media)
        ids = [str(u) for u in uniq]
    known = np.array([u in cat.media for u in ids] + [False])
    optical = np.array([u in cat.media and cat.media[u].optical for u in ids] + [False])
    code = np.where(code >= 0, code, len(ids))
    # backend links per (medium, GPU-to-leaf or not): the per-medium flags then apply to the counts
    gpu_leaf = _equals(links["kind"], "gpu_leaf")
    pair = (code * 2 + gpu_leaf)[_equals(links["network"], "backend")]
    counts = np.bincount(pair, minlength=2 * (len(ids) + 1)).reshape(-1, 2)  # [medium, gpu_leaf]
    per = np.where(known, counts[:, 0] + np.where(optical, 0, counts[:, 1]), 0)  # node-side links apart
    be_links = int(counts[known].sum())
    rest = {ids[i]: int(per[i]) for i in np.flatnonzero(per[: len(ids)])}
    order = sorted(rest, key=list(cat.media).index)
    mtbf = np.r_[node_mtbf, [cat.media[k].mtbf_years for k in order]].astype(float)
    units = np.r_[node.modules, [rest[k] for k in order]].astype(np.int64)
    ttff = time_to_first_failure_min(mtbf, units) if units.sum() else math.inf
    per_day = 0.0 if math.isinf(ttff) else 24 * 60 / ttff
    node_rate = float(np.sum(node.modules.astype(float) / node_mtbf)) if len(node.media) else 0.0
    return {
        "network": "backend",
        "links": be_links,
        "time_to_first_failure_min": None if math.isinf(ttff) else round(ttff, 2),
        "failures_per_day": round(per_day, 3),
        "node_side": {
            "links": int(node.links.sum()),
            "modules": int(node.modules.sum()),
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
