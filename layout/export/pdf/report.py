"""The report assembly: the chapters of a finished Design, in order, laid out into PDF bytes.

Every chapter reads the Design; the headline figures come from Design.summary(), so the PDF states the
same numbers as summary.json.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportlab.platypus import Flowable

from layout.export.atomic import write_bytes
from layout.export.pdf.chapters import (
    assumptions,
    bom,
    cabling,
    cover,
    network,
    optimization,
    plans,
    plant,
    power,
    reliability,
    violations,
)
from layout.export.pdf.document import contents_page, render

if TYPE_CHECKING:
    from layout.design import Design
    from layout.scene import Scene


def build_story(
    design: Design,
    scene: Scene | None = None,
    optimized: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
) -> list[Flowable]:
    """The report's chapters; ``optimized`` (an optimize.json object): a layout optimisation chapter
    after the contents. ``summary``: the design's, if the caller has it (else the scene's, else worked
    out here)."""
    if summary is None:
        summary = dict(scene.summary) if scene is not None and scene.summary else design.summary()
    story: list[Flowable] = cover.story(design, summary)
    story += contents_page()
    if optimized is not None:
        story += optimization.story(optimized)
    story += plans.story(design, scene)
    story += power.story(design, summary)
    story += network.story(design, summary)
    story += cabling.story(design, summary)  # the network chapter's media, lengths and trays sections
    story += plant.story(design, summary)  # and its structured cabling
    story += bom.story(design)
    story += reliability.story(design, summary)
    story += violations.story(design)
    story += assumptions.story(design)
    return story


def render_pdf(
    design: Design,
    scene: Scene | None = None,
    optimized: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
) -> bytes:
    """The report of ``design`` as PDF bytes (deterministic); its plans draw ``scene`` (the design's)."""
    return render(build_story(design, scene, optimized, summary), cover.meta_of(design))


def write_pdf(
    design: Design,
    path: str | os.PathLike[str],
    scene: Scene | None = None,
    optimized: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
) -> Path:
    """Write the report of ``design`` to ``path`` atomically: it is built in memory and moved into place,
    so a failure leaves no file (and an older report untouched). ``optimized``, ``summary``: see
    build_story."""
    return write_bytes(path, render_pdf(design, scene, optimized, summary))
