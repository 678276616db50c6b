"""The README quotes what the code prints today: its generated blocks (commands' output, the shipped
sites' figures) are remade and compared, and it points only at files inside the repository."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from layout import design
from tests.readme_blocks import BLOCK, README, ROOT, stale


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
    flat = " ".join(README.read_text(encoding="utf-8").split())
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
    flat = " ".join(README.read_text(encoding="utf-8").split())
    assert (
        f"on seed002 {row:,} links that fit multimode as cords take DR4 through the row-end panels "
        f"(with panels in every rack: {rack:,})" in flat
    )
