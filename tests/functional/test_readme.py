"""The README quotes what the code prints today: its generated blocks (commands' output, the shipped
sites' figures) are remade and compared, and it points only at files inside the repository."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import numpy as np

from layout import design
from tests.readme_blocks import BLOCK, README, ROOT, stale


def readme_words() -> str:
    """The README's text with every run of white space one space (prose wraps anywhere)."""
    return " ".join(README.read_text(encoding="utf-8").split())


def test_every_generated_block_is_what_the_code_prints_today() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(BLOCK.findall(text)) >= 4
    old = stale(text)
    assert not old, "stale README blocks (python -m tests.readme_blocks): " + ", ".join(w for w, _, _ in old)


def test_links_and_images_point_inside_the_repository() -> None:
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert local, "the README shows pictures of real output"
    for t in local:
        path = (ROOT / t).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), t
    assert "../" not in re.sub(r"```.*?```", "", text, flags=re.S), "a path outside the repository"


def test_the_campus_counts_quoted_in_prose_are_the_designs(design_of: object) -> None:
    """The speed paragraph names the campus design's size; it is that design's."""
    d = design_of("campus-100k")  # type: ignore[operator]
    flat = readme_words()
    sizes = (
        f"{len(d.fabric.devices):,} devices, {len(d.placement.racks):,} racks, {len(d.cabling.links):,} links"
    )
    assert f"the whole 100k-campus design — {sizes} routed" in flat


def test_the_links_the_plant_moves_to_dr4_are_the_designs(inputs_of: Any) -> None:
    """The cable-plant paragraph: seed002's links on multimode without panels that take DR4 through
    the row-end panels, and through panels in every rack."""
    inp = inputs_of("seed002-32k")
    media = {}
    for at in ("none", "row", "rack"):
        site = inp.site.model_copy(update={"plant": inp.site.plant.model_copy(update={"panels": at})})
        media[at] = (
            design.run(dataclasses.replace(inp, site=site)).cabling.links["media"].astype(str).to_numpy()
        )
    row, rack = (int(((media["none"] == "mmf") & (media[at] == "smf-dr")).sum()) for at in ("row", "rack"))
    flat = readme_words()
    assert (
        f"on seed002 {row:,} links that fit multimode as cords take DR4 through the row-end panels "
        f"(with panels in every rack: {rack:,})" in flat
    )


def test_what_the_margins_cost_is_the_designs(design_of: Any, inputs_of: Any) -> None:
    """The power paragraph: UPS blocks, busways and cost with the catalog's margins against none."""
    from layout.model.catalog import Margins

    none = Margins(power_factor=1.0, tap_off=1.0, busway=1.0, switchboard=1.0, ups=1.0, cdu=1.0)

    def counts(d: Any) -> tuple[int, int, float, int]:
        halls = list(d.summary()["halls"].values())
        chain = [h.get("power_chain", {}) for h in halls]
        return (
            sum(c.get("ups_blocks", 0) for c in chain),
            sum(c.get("busways", 0) for c in chain),
            d.summary()["cost_usd"]["total"],
            sum((h.get("cdus") or {}).get("cdus", 0) for h in halls),
        )

    said = []
    for stem in ("campus-100k", "gb200-hall", "seed002-32k"):
        inp = inputs_of(stem)
        full = design.run(dataclasses.replace(inp, catalog=inp.catalog.model_copy(update={"margins": none})))
        said.append((counts(full), counts(design_of(stem))))
    (cu0, _, cc0, _), (cu1, _, cc1, _) = said[0]
    (gu0, gb0, gc0, cdu0), (gu1, gb1, gc1, cdu1) = said[1]
    (su0, _, sc0, _), (su1, _, sc1, _) = said[2]
    flat = readme_words()
    assert (
        f"campus {cu0} → {cu1} UPS blocks (+${(cc1 - cc0) / 1e6:.2f} M in all), gb200-hall {gu0} → {gu1} "
        f"blocks and {gb0} → {gb1} busways (+${(gc1 - gc0) / 1e6:.2f} M; {cdu0} → {cdu1} CDUs), seed002 "
        f"{su0} → {su1} blocks (+${(sc1 - sc0) / 1e6:.2f} M)"
    ) in flat


def test_what_the_campus_fibre_positions_save_is_the_designs(design_of: Any, inputs_of: Any) -> None:
    """The cable-plant paragraph: the campus's fibre cabinets with its halls' fibre_positions against
    the same site without them (the cabinets wherever the floor is free)."""
    kept = design_of("campus-100k")
    inp = inputs_of("campus-100k")
    halls = [
        b.model_copy(update={"hall": [h.model_copy(update={"fibre_positions": None}) for h in b.hall]})
        for b in inp.site.building
    ]
    free = design.run(dataclasses.replace(inp, site=inp.site.model_copy(update={"building": halls})))
    assert free.placement.fibre_positions == {}  # the cabinets all found floor: nothing kept
    assert set(kept.placement.fibre_positions.values()) == {2, 3}

    def run_bn(d: Any) -> tuple[str, str]:
        mean = float(d.cabling.plant.cabinets["run_m"].mean())
        return f"{mean:.1f} m", f"${d.summary()['cost_usd']['total'] / 1e9:.2f} bn"

    (k_run, k_cost), (f_run, f_cost) = run_bn(kept), run_bn(free)
    flat = readme_words()
    assert (
        f"on the campus the cabinets then stand {k_run} from their location on average instead of {f_run}, "
        f"and the capital cost is {k_cost} instead of {f_cost}" in flat
    )


def test_the_campus_links_between_buildings_end_in_the_mdf(design_of: Any) -> None:
    """The cable-plant paragraph: every trunk between buildings has one end in a row of MDF racks (core,
    storage, management) and the other in another building; the counts quoted are the design's."""
    d = design_of("campus-100k")
    racks = d.placement.racks
    building = racks["building"].astype(str).to_numpy()
    row = racks["row"].astype(str).to_numpy()
    kind = racks["kind"].astype(str).to_numpy()
    mdf_rows = {r for r in set(row.tolist()) if set(kind[row == r].tolist()) <= {"core", "storage", "mgmt"}}
    t = d.cabling.plant.trunks
    a, b = t["panel_a"].to_numpy(int), t["panel_b"].to_numpy(int)
    between = building[a] != building[b]
    assert between.sum() > 0
    assert (t["splices"].to_numpy(int)[between] == 2).all()
    ends_in_mdf = np.isin(row[a], list(mdf_rows)) | np.isin(row[b], list(mdf_rows))
    assert ends_in_mdf[between].all()
    mdf_ends = np.where(np.isin(row[a], list(mdf_rows)), a, b)[between]
    far = np.where(np.isin(row[a], list(mdf_rows)), b, a)[between]
    assert len(set(building[mdf_ends].tolist())) == 1
    home = building[mdf_ends][0]
    far_buildings = sorted(set(building[far].tolist()))
    others = f"{far_buildings[0]}–{far_buildings[-1]}"
    flat = readme_words()
    assert (
        f"on the campus all {int(between.sum()):,} trunks between buildings "
        f"({int(t['fibres'].to_numpy(int)[between].sum()):,} fibres) run from the spine rows' panels in "
        f"{others} to panels in the {len(set(row[mdf_ends].tolist()))} MDF rows of {home}"
    ) in flat
    # a patch field at each MDF: two more panel junctions (cassettes) on FR4's channel
    from layout.cable import plant

    fr4 = d.inputs.catalog.media["smf-fr"]
    lc_end = np.array([plant.CONNECTORS.index(fr4.connector)])
    two, four = (sum(int(x[0]) for x in plant.connections(lc_end, n)) for n in (2, 4))
    assert two == fr4.max_connections
    assert f"twice NVIDIA's two (FR4's {two} mated pairs would become {four})" in flat
