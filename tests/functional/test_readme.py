"""The README quotes what the code prints today: its generated blocks (commands' output, the shipped
sites' figures) are remade and compared, and it points only at files inside the repository."""

from __future__ import annotations

import re

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
