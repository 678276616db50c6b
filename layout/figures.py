"""Every headline figure of a design, computed once and printed from here by every output.

A design's :class:`Figures` (``Design.figures``) holds each headline figure's value; :data:`SPECS` gives
each its one label, unit and definition, and :func:`text` its one way of being written. summary.json,
the CLI, the PDF, the XLSX, the drawings' notes, ``compare``, ``sweep``, ``optimize`` and the TUI all
read the value from a design's figures and write it with the label and text of its spec, so one figure
never has two values or two names.

``row`` adds the breakdowns ``compare`` and ``sweep`` tabulate beside the headline figures (switches per
tier, transceivers per medium); ``table`` makes rows of them one typed table.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy and pandas where the figures are worked out: the CLI imports this for ``text``
    import pandas as pd

    from layout.cable import Cabling
    from layout.fabric import Fabric
    from layout.model import Catalog
    from layout.place import Placement
    from layout.power.loads import PowerReport

TIER_ROLES = ("leaf", "spine", "core", "super")
INT_COLUMNS = {
    "gpus",
    "tiers",
    "pods",
    "pod_gpus",
    "node_optics",
    "violations",
    "racks",
    "links_cross_building",
}


@dataclass(frozen=True)
class Spec:
    """What a headline figure is: its key (a column of ``compare``/``sweep``, a key of summary.json's
    ``figures``), its label (the words every output prints), its unit and its definition."""

    key: str
    label: str
    unit: str  # "" (a count), "USD", "MW", "kW", "TWh", "min", "%", "km", "dB", "h"
    definition: str
    summary_key: str = ""  # the dotted summary.json key that holds the same value, if any


def summary_label(dotted: str) -> str | None:
    """The label of the headline figure that summary.json's ``dotted`` key holds, if it holds one."""
    return SUMMARY_LABELS.get(dotted)


SPECS: tuple[Spec, ...] = (
    Spec("gpus", "GPUs", "", "GPUs of the cluster (servers x GPUs per server).", "gpus"),
    Spec("racks", "racks", "", "Racks placed on the halls' floors, of every template.", "racks.total"),
    Spec("it_mw", "IT power (critical load)", "MW", "Sum of every placed rack's design kW.", "power.it_mw"),
    Spec("facility_mw", "facility power", "MW", "IT power x the site's PUE.", "power.facility_mw"),
    Spec("annual_twh", "annual energy", "TWh", "Facility power over 8,760 h a year at the site's utilisation (default 1.0: nameplate).", "power.annual_twh"),
    Spec("annual_cost_usd", "annual electricity cost", "USD", "Annual energy x the site's electricity price.", "power.annual_cost_usd"),
    Spec("max_rack_kw", "most loaded rack", "kW", "The highest design kW of any placed rack.", "power.max_rack_kw"),
    Spec("switches_backend", "switches of the GPU fabric", "", "Leaf, spine, core and super switches of the backend.", "switches.total"),
    Spec("switches_all", "switches of every network", "", "Backend, frontend, storage and management switches.", "switches_all_networks"),
    Spec("optics_total", "transceivers", "", "Optical modules at both ends of every optical link, every network."),
    Spec("node_optics", "node-side optical modules", "", "Optical modules in the GPU servers' NIC cages.", "node_optics"),
    Spec(
        "copper_share_pct", "copper share of the GPU fabric's links", "%",
        "Backend links on DAC or AEC copper, per cent of backend links with a medium.", "copper_share_pct",
    ),
    Spec("cable_km", "cable at stock lengths", "km", "Every cable as bought: its stock length, summed."),
    Spec(
        "network_power_mw", "network power", "MW",
        "Every switch with its optics, plus the server-end modules.",
    ),
    Spec(
        "cost_total_usd", "capital cost, power chain included", "USD",
        "The whole bill of materials: servers, network, racks, trays, cooling and the power chain.", "cost_usd.total",
    ),
    Spec(
        "cost_without_power_chain_usd", "capital cost without the power chain", "USD",
        "The bill of materials less its power category (busways, tap-offs, UPS blocks, switchboards).",
    ),
    Spec(
        "cost_network_usd", "network cost", "USD",
        "Switches, NICs, transceivers, cables and trays of the bill of materials.", "cost_usd.network",
    ),
    Spec(
        "ttff_min", "time to the first failure, node-side optical links", "min",
        "Mean time until the first of the GPU servers' optical links fails (independent, constant rates).",
        "reliability.time_to_first_failure_min",
    ),
    Spec(
        "ttff_all_links_min", "time to the first failure, every backend link", "min",
        "Mean time until the first backend link fails, each with its medium's MTBF, copper included.",
        "reliability.all_links.time_to_first_failure_min",
    ),
    Spec(
        "tray_fill_max_pct", "fullest tray segment", "%",
        "Cable cross-section at a tray or duct segment's fullest point, per cent of the segment's "
        "cross-section (levels x width x depth; a duct's conduit bores); each segment has its fill limit.",
    ),
    Spec(
        "install_hours", "cabling installation", "h",
        "Technician-hours to pull, dress, plug, label and test every cable, trunk and panel "
        "(catalog [labour] minutes, indicative).", "install.hours",
    ),
    Spec("trunks", "fibre trunks", "", "MPO trunks between patch panels (layout/cable/plant.py), every size.", "plant.trunks"),
    Spec("patch_panels", "patch panels (1U)", "", "1U fibre patch panels at every panel location.", "plant.panels"),
    Spec(
        "worst_channel_db", "worst optical channel", "dB",
        "The highest insertion loss of any optical link: mated connections, splices and fibre.", "plant.worst_channel_db",
    ),
    Spec(
        "links_cross_building", "links between buildings", "",
        "Links of every network whose two ends stand in two buildings (they run through the campus ducts).",
        "inter_building.links",
    ),
    Spec(
        "violations", "design-rule violations", "", "Breaches of the design rules, each listed with where.",
        "violations",  # summary.json lists them; this is their count
    ),
)  # fmt: skip
# ``dclayout fabric`` sizes a fabric without a site: no placement, so every node-side link is counted as
# optical (a design puts some on copper in the rack); a figure of its own, named as such
FABRIC_TTFF = Spec(
    "ttff_fabric_min",
    "time to the first failure, node-side links all optical (fabric alone, no placement)",
    "min",
    "As the node-side figure of a design, with every GPU-to-leaf link counted as optical.",
)
SPEC: dict[str, Spec] = {s.key: s for s in (*SPECS, FABRIC_TTFF)}
SUMMARY_LABELS: dict[str, str] = {s.summary_key: s.label for s in SPECS if s.summary_key}


def text(key: str, value: Any) -> str:
    """``value`` of the figure ``key`` as every output writes it (the unit included)."""
    unit = SPEC[key].unit
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "none" if key.startswith("ttff") else "-"
    v = float(value)
    if unit == "":
        return f"{round(v):,}"
    if unit == "USD":
        if abs(v) >= 1e9:
            return f"${v / 1e9:,.2f} bn"
        if abs(v) >= 1e6:
            return f"${v / 1e6:,.2f} M"
        return f"${v:,.0f}"
    if unit == "min":
        if v >= 600:
            return f"{v:,.0f} min ({v / 60:,.1f} h)"
        return f"{v:,.1f} min" if v >= 100 else f"{v:,.2f} min"  # seed 000's 26.28 min to the hundredth
    if unit == "TWh":
        return f"{v:,.3f} TWh" if v >= 1 else f"{v * 1000:,.1f} GWh"
    if unit == "%":
        return f"{v:.1f} %"
    if unit == "h":
        return f"{v:,.0f} h"
    if unit == "dB":
        return f"{v:.2f} dB"
    if unit in ("MW", "kW", "km"):
        return f"{v:,.2f} {unit}" if unit == "MW" else f"{v:,.1f} {unit}"
    return f"{v:g} {unit}"


@dataclass(frozen=True)
class Figure:
    spec: Spec
    value: Any

    @property
    def label(self) -> str:
        return self.spec.label

    @property
    def text(self) -> str:
        return text(self.spec.key, self.value)

    def line(self) -> str:
        """``label: text``, as the CLI and the drawings' notes write a figure."""
        return f"{self.spec.label}: {self.text}"


@dataclass(frozen=True)
class Figures:
    """A design's headline figures, by key (:data:`SPECS`)."""

    values: Mapping[str, Any]

    def __getitem__(self, key: str) -> Figure:
        return Figure(SPEC[key], self.values[key])

    def value(self, key: str) -> Any:
        return self.values[key]

    def __iter__(self) -> Iterator[Figure]:
        return (Figure(s, self.values[s.key]) for s in SPECS)

    def to_json(self) -> dict[str, dict[str, Any]]:
        """summary.json's ``figures``: each figure's label, value and unit."""
        return {s.key: {"label": s.label, "value": self.values[s.key], "unit": s.unit} for s in SPECS}


def of(
    fabric: Fabric,
    placement: Placement,
    cabling: Cabling,
    power_report: PowerReport,
    bom: pd.DataFrame,
    reliability: Mapping[str, Any],
    violations: int,
    catalog: Catalog | None = None,
    links_cross_building: int = 0,
) -> Figures:
    """The headline figures of a design from its stages' results, each worked out here and nowhere else."""
    import numpy as np

    from layout import bom as bom_mod

    cost = bom_mod.totals(bom)
    power = power_report.summary()
    rel = reliability
    links = cabling.links
    switch_kw = float(np.nansum(cabling.switch_power_kw))
    server = (fabric.devices["role"] == "server").to_numpy()
    fill = cabling.edge_fill
    used = fill["cables"].to_numpy() > 0 if len(fill) else np.zeros(0, bool)
    fullest = float(fill["fill"].to_numpy(float)[used].max()) if used.any() else 0.0
    copper, backend = cabling.backend_copper()
    plant = cabling.plant.summary()
    from layout.cable import labour
    from layout.cable.stage import copper_share_pct

    values: dict[str, Any] = {
        "gpus": int(fabric.gpus),
        "racks": int(len(placement.racks)),
        "it_mw": power["it_mw"],
        "facility_mw": power["facility_mw"],
        "annual_twh": power["annual_twh"],
        "annual_cost_usd": power["annual_cost_usd"],
        "max_rack_kw": power["max_rack_kw"],
        "switches_backend": int(fabric.summary()["switches"]["total"]),
        "switches_all": int(fabric.switches_all_networks()),
        "optics_total": int(sum(cabling.transceivers().values())),
        "node_optics": int(rel["node_optical_modules"]),
        "copper_share_pct": copper_share_pct(copper, backend),
        "cable_km": round(float(np.nansum(links["stock_length_m"].to_numpy(float))) / 1000.0, 3),
        "network_power_mw": round((switch_kw + float(cabling.module_w[server].sum()) / 1000.0) / 1000.0, 4),
        "cost_total_usd": cost["total"],
        "cost_without_power_chain_usd": round(cost["total"] - cost["by_category"].get("power", 0.0), 2),
        "cost_network_usd": cost["network"],
        "ttff_min": rel["time_to_first_failure_min"],
        "ttff_all_links_min": rel["all_links"]["time_to_first_failure_min"],
        "tray_fill_max_pct": round(100.0 * fullest, 1),
        "install_hours": (
            labour.summary(catalog, cabling, placement.racks)["hours"] if catalog is not None else None
        ),
        "trunks": plant["trunks"],
        "patch_panels": plant["panels"],
        "worst_channel_db": plant["worst_channel_db"],
        "violations": int(violations),
        "links_cross_building": int(links_cross_building),
    }
    return Figures(values)


def row(catalog: Catalog, fabric: Fabric, cabling: Cabling, figs: Figures) -> dict[str, Any]:
    """A designed variant's row of ``compare`` / ``sweep``: the fabric's shape, switches per tier,
    transceivers per optical medium, then every headline figure ``figs`` (``figure_columns``)."""
    import numpy as np
    import pandas as pd

    cat = catalog
    s = fabric.summary()
    out: dict[str, Any] = dict(
        tiers=fabric.tiers,
        pods=fabric.pods,
        pod_gpus=fabric.pod_gpus,
        oversubscription=fabric.oversubscription,
    )
    for r in TIER_ROLES:
        out[f"switches_{r}"] = s["switches"][r]
    mods = cabling.modules
    per_media = (
        mods.groupby("media", sort=False)["modules"].sum() if not mods.empty else pd.Series(dtype=np.int64)
    )
    for m, spec in cat.media.items():
        if spec.optical:
            out[f"optics_{m}"] = int(per_media.get(m, 0))
    out.update(figs.values)
    return out


def figure_columns(catalog_media: list[str]) -> list[str]:
    """The columns of ``row`` for a catalog whose optical media are ``catalog_media``."""
    return [
        "gpus", "tiers", "pods", "pod_gpus", "oversubscription",
        *(f"switches_{r}" for r in TIER_ROLES),
        *(f"optics_{m}" for m in catalog_media),
        *(s.key for s in SPECS if s.key != "gpus"),
    ]  # fmt: skip


def table(rows: list[dict[str, Any]], cols: list[str]) -> pd.DataFrame:
    """Rows of figures as a table of ``cols``: counts as nullable integers (a row without figures has
    none), ``error`` as text ("" when the row has figures)."""
    import pandas as pd

    df = pd.DataFrame(rows).reindex(columns=cols)
    for c in df.columns:
        if c in INT_COLUMNS or (c in SPEC and SPEC[c].unit == "") or c.startswith(("switches_", "optics_")):
            df[c] = df[c].astype("Int64")
    df["error"] = [e if isinstance(e, str) else "" for e in df["error"]]
    return df
