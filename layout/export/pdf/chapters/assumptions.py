"""The assumptions chapter: every figure the design used and its source (the site file, the rack
templates, and the comment next to each figure in the catalog).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomlkit
from reportlab.platypus import (
    Flowable,
    Paragraph,
)

from layout.export.pdf.document import h1, h2
from layout.export.pdf.flowables import Cell, Col, data_table
from layout.export.pdf.formatting import fmt_int, para, safe
from layout.export.pdf.theme import FRAME_W, STYLES


# ------------------------------------------------------------------------------------ catalog sources
@dataclass(frozen=True)
class Figure:
    section: str  # server, switch, nic, media, rack_part
    item: str  # catalog id ("" for rack_part)
    key: str
    value: str
    source: str  # the comment next to the figure, "" when the catalog gives none


def catalog_figures(path: Path, used: dict[str, set[str]] | None = None) -> list[Figure]:
    """Every numeric figure of the catalog (optionally only the items in ``used[section]``) with the
    comment written next to it in the TOML file, which is where the catalog records its source."""
    every = _catalog_figures(path.read_text(encoding="utf-8"))
    if used is None:
        return list(every)
    return [f for f in every if f.section == "rack_part" or f.item in used.get(f.section, set())]


@functools.lru_cache(maxsize=4)
def _catalog_figures(text: str) -> tuple[Figure, ...]:
    """The figures of a catalog's text, kept by that text: tomlkit (which keeps the comments) takes
    ~0.05 s on the shipped catalog, and a session that writes its report again (the TUI) reads the same
    file; an edited file is new text, parsed afresh."""
    doc = tomlkit.parse(text)
    out: list[Figure] = []
    for section, body in doc.items():
        if not isinstance(body, dict):
            continue
        if section == "rack_part":
            out += _figures(section, "", body)
            continue
        for item_id, table in body.items():
            if isinstance(table, dict):
                out += _figures(section, str(item_id), table)
    return tuple(out)


def _figures(section: str, item_id: str, table: Any) -> list[Figure]:
    out: list[Figure] = []
    for key, item in table.items():
        value = item.unwrap() if hasattr(item, "unwrap") else item
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        numeric_list = isinstance(value, list) and all(isinstance(v, int | float) for v in value)
        if not (numeric or numeric_list):
            continue
        comment = item.trivia.comment if hasattr(item, "trivia") else ""
        text = ", ".join(f"{v:g}" for v in value) if numeric_list else f"{value:g}"
        out.append(Figure(section, item_id, str(key), text or "(none)", comment.lstrip("#").strip()))
    return out


# -------------------------------------------------------------------------------------- assumptions
def _used_catalog(design: Any) -> dict[str, set[str]]:
    models = {str(m) for m in design.fabric.devices["model"].unique()}
    cat = design.inputs.catalog
    return {
        "server": models & set(cat.server),
        "switch": models & set(cat.switch),
        "nic": {design.fabric.nic},
        "media": {str(m) for m in design.cabling.links["media"].dropna().unique()} & set(cat.media),
    }


def story(design: Any) -> list[Flowable]:
    inp = design.inputs
    s = inp.site
    out: list[Flowable] = [*h1("Assumptions")]
    out.append(
        para(
            "Every figure the design used, with its source: the site file for the site's own inputs, the rack "
            "templates for the cabinets, and the comment written next to each figure in the catalog (for the "
            "servers, switches and NIC the design contains and the media its links use). 'no source given' "
            "marks a catalog figure without one; 'unverified' is the catalog's own warning."
        )
    )
    rows: list[list[Cell]] = [
        ["site.utility_mw", f"{s.site.utility_mw:g}"],
        ["site.pue", f"{s.site.pue:g}"],
        ["site.electricity_usd_per_kwh", f"{s.site.electricity_usd_per_kwh:g}"],
        ["cluster.gpus", fmt_int(s.cluster.gpus)],
        ["cluster.oversubscription", f"{s.cluster.oversubscription:g}"],
        ["cluster.link_mtbf_years", f"{s.cluster.link_mtbf_years:g}"],
        ["training.step_s", f"{s.training.step_s:g}"],
        ["training.checkpoint_every_steps", fmt_int(s.training.checkpoint_every_steps)],
        ["training.hbm_gb", f"{s.training.hbm_gb:g}"],
    ]
    out += [
        *h2(f"Site inputs ({inp.path.name})"),
        data_table([Col("Key", 250), Col("Value", 120, True)], rows),
    ]
    rows = [
        [
            f"{b.id}/{h.id}",
            h.cooling,
            f"{h.max_rack_kw:g}",
            f"{h.floor_load_kg_m2:g}",
            "slab, not checked"
            if h.floor == "slab"
            else f"{h.point_load_kg:g} / {h.tile_m:g} m / {h.tile_load_kg:g}",
            f"{h.it_mw:g}" if h.it_mw else "none",
            f"{b.it_mw:g}" if b.it_mw else "none",
        ]
        for b, h in s.halls()
    ]
    cols = [
        Col("Hall", 60),
        Col("Cooling", 55),
        Col("max_rack_kw", 60, True),
        Col("floor_load_kg_m2", 80, True),
        Col("kg per foot / tile / kg per tile", 130, True),
        Col("Hall it_mw", 55, True),
        Col("Building it_mw", 65, True),
    ]
    out += [*h2("Halls (from the site file)"), data_table(cols, rows)]
    out += facilities(design)
    used_tpl = sorted(set(design.placement.racks["template"].astype(str)))
    rows = []
    for t in used_tpl:
        tpl = inp.templates[t]
        rows.append(
            [
                t,
                tpl.name,
                f"{tpl.width_mm:g} x {tpl.depth_mm:g}",
                f"{tpl.weight_kg_empty:g}",
                f"{tpl.pdu_kw:g}",
                tpl.cooling,
            ]
        )
    cols = [
        Col("Template", 70),
        Col("Name", 190),
        Col("W x D mm", 65, True),
        Col("Empty kg", 50, True),
        Col("PDU kW", 45, True),
        Col("Cooling", FRAME_W - 420),
    ]
    out += [*h2("Rack templates used"), data_table(cols, rows)]
    figs = catalog_figures(inp.templates_dir / "catalog.toml", _used_catalog(design))
    rows = []
    for f in figs:
        src = safe(f.source) if f.source else "<i>no source given</i>"
        rows.append(
            [f"{f.section}.{f.item}" if f.item else f.section, f.key, f.value, Paragraph(src, STYLES["cell"])]
        )
    cols = [Col("Catalog item", 95), Col("Figure", 90), Col("Value", 75, True), Col("Source", FRAME_W - 260)]
    out += [*h2("Catalog figures used"), data_table(cols, rows)]
    return out


WATER_KJ_PER_L_K = 4.18  # volumetric heat capacity of water near 30 C (a glycol mix is ~10 % lower)


def facilities(design: Any) -> list[Flowable]:
    """The facilities assumptions in one place: the margins and power factor the chain was sized
    with (the catalog's, with the site's overrides), how energy is stated, the cooling types' heat per
    m2 and liquid fractions, each server's liquid fraction, and each CDU model's flow and the coolant
    temperature rise it implies (water)."""
    from layout.power.facility import FacilityInput

    inp = design.inputs
    fac = FacilityInput.of(inp)
    site_set = set(inp.site.margins.model_dump(exclude_none=True))
    m = fac.margins
    rows: list[list[Cell]] = [
        [
            "site.utilisation (energy)",
            f"{inp.site.site.utilisation:g}",
            "site file" + (", default: nameplate" if inp.site.site.utilisation >= 1 else ""),
        ],
        ["site.pue", f"{inp.site.site.pue:g}", "site file"],
        [
            "power factor of the IT load",
            f"{m.power_factor:g}",
            "site [margins]" if "power_factor" in site_set else "catalog [margins]",
        ],
    ]
    for kind, what in (
        ("tap_off", "tap-off boxes"),
        ("busway", "busways"),
        ("switchboard", "switchboards"),
        ("ups", "UPS blocks"),
        ("cdu", "CDUs and rear doors"),
    ):
        rows.append(
            [
                f"continuous load of {what}",
                f"{getattr(m, kind):.0%} of rating",
                "site [margins]" if kind in site_set else "catalog [margins]",
            ]
        )
    cooling_used = sorted({h.cooling for _, h in fac.halls})
    for c in cooling_used:
        spec = inp.catalog.cooling.get(c)
        if spec is not None:
            rows.append(
                [
                    f"{c} halls: heat rejected per m2 of floor",
                    f"{spec.kw_per_m2:g} kW/m2",
                    f"catalog [cooling.{c}]",
                ]
            )
            if c == "liquid":
                rows.append(
                    [
                        f"{c} racks: share of heat into the coolant",
                        f"{spec.liquid_fraction:g}",
                        f"catalog [cooling.{c}], unless the server states its own",
                    ]
                )
    used = set(design.placement.racks["template"].astype(str))
    for t in sorted(used):
        frac = fac.template_liquid_fraction.get(t)
        if frac is not None and inp.templates[t].cooling == "liquid":
            rows.append([f"{t}: its servers' liquid fraction", f"{frac:g}", "catalog server"])
    cdus = design.liquid.cdus
    for model in sorted(set(cdus["model"].astype(str))) if len(cdus) else []:
        spec = inp.catalog.cdu[model]
        dt = spec.rating_kw / (WATER_KJ_PER_L_K * spec.flow_l_per_s)
        rows.append(
            [
                f"CDU {model}: rating, flow, coolant rise",
                f"{spec.rating_kw:,.0f} kW, {spec.flow_l_per_s:g} L/s, {dt:.1f} K",
                "catalog [cdu]; the rise for water at its rated heat and flow",
            ]
        )
    cols = [Col("Assumption", 200), Col("Value", 110, True), Col("Source", FRAME_W - 310)]
    return [
        *h2("Facilities assumptions"),
        para(
            "What the power chain, the cooling and the energy figures were worked out with; each element is "
            "loaded to at most its rating times its continuous-load share, at the power factor above."
        ),
        data_table(cols, rows),
    ]
