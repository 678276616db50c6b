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
KINDS = (
    "summary",
    "svg",
    "dxf",
    "pdf",
    "csv",
    "xlsx",
    "parquet",
    "slurm",
    "dot",
    "ifc",
    "usd",
    "labels",
    "turnup",
    "dcim",
)


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
    ``pdf`` ``STEM.dxf`` and ``STEM.pdf``, ``csv``, ``xlsx`` and ``parquet`` the tables, ``slurm`` the
    scheduler's topology files, ``dot`` the fabric graph, ``ifc`` the BIM model ``STEM.ifc``, ``usd`` the twin's stage ``STEM.usda``, ``labels`` the installers' labels and pull sheets, ``turnup`` the bring-up cable map, ``dcim`` the DCIM import files (STEM: the site file's stem as :func:`layout.files.safe_name` makes it). ``summary`` and ``scene``: the design's, if
    the caller has them already.

    The files are one set (:class:`layout.files.StagedSet`): all are written into a hidden staging folder
    in ``out_dir`` and renamed into place only when every one is written (``summary.json`` last), so a
    failed export leaves the previous set whole; what a killed run left there is cleaned up first."""
    wanted = set(kinds)
    unknown = sorted(wanted - set(KINDS))
    if unknown:
        raise ValueError(f"unknown export kind(s) {', '.join(unknown)} (allowed: {', '.join(KINDS)})")
    from layout.files import StagedSet

    summary = dict(design.summary() if summary is None else summary)
    if wanted & {"svg", "dxf", "pdf", "ifc", "usd"}:
        from layout.scene import scene_of

        scene = scene_of(design, summary) if scene is None else scene
        if not scene.summary:
            scene = dataclasses.replace(scene, summary=summary)
    with StagedSet(out_dir) as staged:
        written = _write_into(design, wanted, staged.folder, summary, scene)
        names = [p.name for p in written]
        # the summary last: a summary.json newer than the other files marks a set whole
        order = [n for n in names if n != "summary.json"] + [n for n in names if n == "summary.json"]
        staged.publish(order)
    return [Path(out_dir) / n for n in names]


def _write_into(
    design: Design, wanted: set[str], out: Path, summary: dict[str, Any], scene: Scene | None
) -> list[Path]:
    """Write the exports ``wanted`` into the folder ``out``, in the order of :data:`KINDS`."""
    from layout.files import safe_name

    stem = safe_name(design.inputs.stem)
    written: list[Path] = []
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
            stem=stem,
        )
    if "slurm" in wanted:
        from layout.export.slurm import write_slurm

        written += write_slurm(design, out, stem)
    if "dot" in wanted:
        from layout.export.dot import write_dot

        written += write_dot(design, out, stem)
    if "ifc" in wanted:
        from layout.export.ifc import write_ifc

        assert scene is not None
        written.append(write_ifc(design, out / f"{stem}.ifc", scene))
    if "usd" in wanted:
        from layout.export.usd import write_usd

        assert scene is not None
        written.append(write_usd(design, out / f"{stem}.usda", scene))
    if "labels" in wanted:
        from layout.export.plant_files import write_labels

        written += write_labels(design, out, stem)
    if "turnup" in wanted:
        from layout.export.plant_files import write_turnup

        written += write_turnup(design, out, stem)
    if "dcim" in wanted:
        from layout.export.dcim import write_dcim

        written += write_dcim(design, out, stem)
    if "summary" in wanted:  # last: it lists the set's other files with their SHA-256
        from layout.files import file_digests, write_text

        whole = {**summary, "files": file_digests(written)}
        written.insert(
            0, write_text(out / "summary.json", json.dumps(whole, indent=2, sort_keys=True) + "\n")
        )
    return written
