"""Exporters: thin adapters that read a finished `layout.design.Design` and write files (atomically).

:func:`write` is the one entry point the CLI (``dclayout design --dxf ...``) and the TUI's export use:
it works out the design's summary and scene once and hands them to each exporter. The exporters are
imported only for the kinds asked for, so a run without ``--pdf`` never loads reportlab.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from layout.design import Design
    from layout.scene import Scene

# what write() can write, in the order it writes them
KINDS = ("summary", "svg", "dxf", "pdf", "csv", "xlsx", "parquet")


def write(
    design: Design,
    kinds: Iterable[str],
    out_dir: str | Path,
    *,
    summary: Mapping[str, Any] | None = None,
    scene: Scene | None = None,
) -> list[Path]:
    """Write the exports ``kinds`` (of :data:`KINDS`) of ``design`` into ``out_dir`` and return the paths,
    in the order of :data:`KINDS`: ``summary`` is ``summary.json``, ``svg`` one plan per hall, ``dxf`` and
    ``pdf`` ``STEM.dxf`` and ``STEM.pdf``, ``csv``, ``xlsx`` and ``parquet`` the tables. ``summary`` and ``scene``: the
    design's, if the caller has them already. Every file is built in memory and moved into place, so a
    failure leaves no half-written file (files written before it stay)."""
    wanted = set(kinds)
    unknown = sorted(wanted - set(KINDS))
    if unknown:
        raise ValueError(f"unknown export kind(s) {', '.join(unknown)} (allowed: {', '.join(KINDS)})")
    out = Path(out_dir)
    stem = design.inputs.stem
    summary = dict(design.summary() if summary is None else summary)
    if wanted & {"svg", "dxf", "pdf"}:
        from layout.scene import scene_of

        scene = scene_of(design, summary) if scene is None else scene
        if not scene.summary:
            scene = dataclasses.replace(scene, summary=summary)
    written: list[Path] = []
    if "summary" in wanted:
        from layout.files import write_text

        written.append(write_text(out / "summary.json", json.dumps(summary, indent=2, sort_keys=True) + "\n"))
    if "svg" in wanted:
        from layout.export.svg import write_svgs

        assert scene is not None
        written += write_svgs(scene, out, stem)
    if "dxf" in wanted:
        from layout.export.dxf import write_scene

        assert scene is not None
        written.append(write_scene(scene, out / f"{stem}.dxf"))
    if "pdf" in wanted:
        from layout.export.pdf import write_pdf

        written.append(write_pdf(design, out / f"{stem}.pdf", scene=scene))
    if wanted & {"csv", "xlsx", "parquet"}:
        from layout.export import tables

        written += tables.write_tables_of(
            design,
            out,
            csv="csv" in wanted,
            xlsx="xlsx" in wanted,
            parquet="parquet" in wanted,
            summary=summary,
        )
    return written
