"""How often a large training job is interrupted by a link, and what each interruption costs.

Failures are modelled as independent and exponential (constant rate), so the rates of all links add up
and the time to the first failure of any of them is 1 / (sum of rates). Seed 000's figures: 100,000
node-side optical links with a 5-year MTBF each fail, somewhere, every 26.28 minutes.

The formulas (:func:`time_to_first_failure_min`, :func:`checkpoint_loss`) and the design's figures:
``design_reliability(ReliabilityInput.of(inputs, fabric, cabling))`` gives the design's own time to
first job failure (its node-side optical modules and their MTBFs, the seed's definition) and, under
``all_links``, from every link of the backend fabric with its medium's MTBF (copper too), and the
checkpoint-restart vs in-memory loss of the site's ``[training]`` table, worst case and expected.

:class:`ReliabilityInput` is exactly what the figures read of the inputs, the fabric and the cabling.
It names the fabric and the cabling by what it takes of them (:class:`FabricParts`,
:class:`CablingParts`), not by their classes: the fabric reports its own time to first failure with
the formulas here, so this module may not import layout.fabric, nor layout.cable, which does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from layout.load import Inputs
    from layout.model import Catalog
    from layout.model.site import Training

MINUTES_PER_YEAR = 365 * 24 * 60  # 525,600: seed 000 uses 5 years = 2,628,000 minutes
SECONDS_PER_DAY = 86_400


def time_to_first_failure_min(link_mtbf_years: float | ArrayLike, links: int | ArrayLike) -> float:
    """Mean minutes until the first of ``links`` links fails.

    Scalars: one population, ``MTBF in minutes / links``. Arrays (aligned, one entry per population,
    e.g. per medium): ``1 / sum(count / mtbf)``. No links at all: ``math.inf``.
    """
    mtbf = np.asarray(link_mtbf_years, dtype=float)
    count = np.asarray(links, dtype=float)
    if np.any(mtbf <= 0) or not np.all(np.isfinite(mtbf)):
        raise ValueError(f"link MTBF must be a positive number of years, got {link_mtbf_years!r}")
    if np.any(count < 0):
        raise ValueError(f"link counts must not be negative, got {links!r}")
    rate_per_year = float(np.sum(np.broadcast_to(count, np.broadcast_shapes(count.shape, mtbf.shape)) / mtbf))
    if rate_per_year == 0:
        return math.inf
    return MINUTES_PER_YEAR / rate_per_year


@dataclass(frozen=True)
class CheckpointLoss:
    """GPU time lost per failure: restart from the last checkpoint vs in-memory (RDMA) recovery."""

    gpus: int
    restart_gpu_days: float  # failure at the last step before a checkpoint: (N - 1) steps redone
    in_memory_step_gpu_days: float  # the one step in flight is redone
    in_memory_copy_gpu_days: float  # every GPU waits while its HBM state is copied back over its link
    copy_s: float  # hbm_gb at link_gbps

    @property
    def in_memory_gpu_days(self) -> float:
        return self.in_memory_step_gpu_days + self.in_memory_copy_gpu_days

    @property
    def saved_gpu_days(self) -> float:
        return self.restart_gpu_days - self.in_memory_gpu_days

    @property
    def restart_expected_gpu_days(self) -> float:
        """Expected loss of a restart: a failure is as likely after any of the N steps between two
        checkpoints (0 .. N - 1 steps redone), so on average half the worst case."""
        return self.restart_gpu_days / 2

    @property
    def in_memory_expected_gpu_days(self) -> float:
        """In-memory recovery redoes the step in flight and copies the state back whenever the failure
        comes: its expected loss is its worst case."""
        return self.in_memory_gpu_days


def checkpoint_loss(
    gpus: int, step_s: float, checkpoint_every_steps: int, hbm_gb: float, link_gbps: float
) -> CheckpointLoss:
    """Seed 000: 100,000 GPUs, 2 s/step, checkpoint every 100 steps -> 229 GPU-days lost restarting,
    against 2.3 GPU-days (one step) + 1.85 GPU-days (80 GB copied at 400 Gb/s = 1.6 s) in memory."""
    if gpus <= 0 or step_s <= 0 or checkpoint_every_steps < 1 or hbm_gb < 0 or link_gbps <= 0:
        raise ValueError("gpus, step_s, link_gbps must be positive, checkpoint_every_steps >= 1, hbm_gb >= 0")
    copy_s = hbm_gb * 8 / link_gbps
    return CheckpointLoss(
        gpus=gpus,
        restart_gpu_days=gpus * (checkpoint_every_steps - 1) * step_s / SECONDS_PER_DAY,
        in_memory_step_gpu_days=gpus * step_s / SECONDS_PER_DAY,
        in_memory_copy_gpu_days=gpus * copy_s / SECONDS_PER_DAY,
        copy_s=copy_s,
    )


class FabricParts(Protocol):
    """What the figures read of a fabric (layout.fabric.Fabric)."""

    @property
    def nic(self) -> str: ...
    @property
    def server(self) -> str: ...
    @property
    def gpus(self) -> int: ...


class CablingParts(Protocol):
    """What the figures read of a cabling (layout.cable.Cabling)."""

    @property
    def modules(self) -> pd.DataFrame: ...
    @property
    def links(self) -> pd.DataFrame: ...


@dataclass(frozen=True, eq=False)
class ReliabilityInput:
    """Exactly what :func:`design_reliability` reads: the catalog (MTBFs, the NIC, the server's link
    speed), the cluster's ``link_mtbf_years`` when the site gives it (None: the NIC's or the media's
    figure), the site's ``[training]`` table, the fabric's NIC, server and GPUs, and the cabling's
    transceiver modules and links tables (the very tables: never changed)."""

    catalog: Catalog
    site_link_mtbf_years: float | None
    training: Training
    nic: str
    server: str
    gpus: int
    modules: pd.DataFrame
    links: pd.DataFrame

    @classmethod
    def of(cls, inputs: Inputs, fabric: FabricParts, cabling: CablingParts) -> ReliabilityInput:
        cluster = inputs.site.cluster
        given = "link_mtbf_years" in cluster.model_fields_set
        return cls(
            catalog=inputs.catalog,
            site_link_mtbf_years=cluster.link_mtbf_years if given else None,
            training=inputs.site.training,
            nic=fabric.nic,
            server=fabric.server,
            gpus=fabric.gpus,
            modules=cabling.modules,
            links=cabling.links,
        )


def design_reliability(inp: ReliabilityInput) -> dict[str, Any]:
    """Time to the first job failure from the design's node-side optical modules, and what a failure
    costs with checkpoint restart vs in-memory recovery (the site's ``[training]`` table).

    A node-side module is a server-end transceiver on a GPU-to-leaf link (Cedar-7: one dual-port module
    for two links). Its MTBF: ``cluster.link_mtbf_years`` when the site sets it, else the NIC's own
    ``link_mtbf_years`` (Cedar-7: 4 years per dual-port link), else the medium's ``mtbf_years``.
    """
    cat = inp.catalog
    nic = cat.nic[inp.nic]
    by_media = _node_modules(inp.modules)
    if inp.site_link_mtbf_years is not None:
        source, fixed = "site", inp.site_link_mtbf_years
    elif nic.link_mtbf_years is not None:
        source, fixed = "nic", nic.link_mtbf_years
    else:
        source, fixed = "media", None
    mtbf = np.array([fixed if fixed is not None else cat.media[k].mtbf_years for k in by_media.media], float)
    modules = by_media.modules
    ttff = time_to_first_failure_min(mtbf, modules) if len(modules) else math.inf
    srv = cat.server[inp.server]
    tr = inp.training
    loss = checkpoint_loss(inp.gpus, tr.step_s, tr.checkpoint_every_steps, tr.hbm_gb, srv.backend_port_gbps)
    per_day = 0.0 if math.isinf(ttff) else 24 * 60 / ttff
    every = _all_links(cat, inp.links, by_media, mtbf, loss)
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
            "gpus": inp.gpus,
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
    cat: Catalog, links: pd.DataFrame, node: NodeModules, node_mtbf: np.ndarray, loss: CheckpointLoss
) -> dict[str, Any]:
    """Time to the first failure of any backend link, each with its medium's MTBF: the node-side
    optical modules as in the seed's figure (``node``: links and modules per medium at ``node_mtbf``),
    and every other backend link (switch-to-switch optics, copper GPU jumpers, DAC and AEC) at its
    medium's ``mtbf_years``; and what the failures cost per day, worst case and expected."""
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
