"""Exporters: thin adapters that read a finished `layout.design.Design` and write files (atomically).

:func:`write` is the one entry point the CLI (``dclayout design --dxf ...``) and the TUI's export use:
it works out the design's summary and scene once and hands them to each exporter. The exporters are
imported only for the kinds asked for, so a run without ``--pdf`` never loads reportlab.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from functools import partial
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
    jobs: int = 0,
) -> list[Path]:
    """Write the exports ``kinds`` (of :data:`KINDS`) of ``design`` into ``out_dir`` and return the paths,
    in the order of :data:`KINDS`: ``summary`` is ``summary.json``, ``svg`` one plan per hall, ``dxf`` and
    ``pdf`` ``STEM.dxf`` and ``STEM.pdf``, ``csv``, ``xlsx`` and ``parquet`` the tables, ``slurm`` the
    scheduler's topology files, ``dot`` the fabric graph, ``ifc`` the BIM model ``STEM.ifc``, ``usd`` the twin's stage ``STEM.usda``, ``labels`` the installers' labels and pull sheets, ``turnup`` the bring-up cable map, ``dcim`` the DCIM import files (STEM: the site file's stem as :func:`layout.files.safe_name` makes it). ``summary`` and ``scene``: the design's, if
    the caller has them already. ``jobs``: how many of them may be written by forked worker processes
    meanwhile (layout/export/lanes.py; 0, the default: all here, as a process running threads must).

    The files are one set (:class:`layout.files.StagedSet`): all are written into a hidden staging folder
    in ``out_dir`` and renamed into place only when every one is written (``summary.json`` last), so a
    failed export leaves the previous set whole; what a killed run left there is cleaned up first."""
    wanted = set(kinds)
    unknown = sorted(wanted - set(KINDS))
    if unknown:
        raise ValueError(f"unknown export kind(s) {', '.join(unknown)} (allowed: {', '.join(KINDS)})")
    from layout.export import lanes
    from layout.files import StagedSet
    from layout.gcpause import collections_paused

    summary = dict(design.summary() if summary is None else summary)
    workers: list[lanes.Worker] = []  # those that answered are reaped once the set is published
    try:
        with StagedSet(out_dir) as staged, collections_paused():
            written = _write_into(design, wanted, staged.folder, summary, scene, jobs, workers)
            names = [p.name for p in written]
            # the summary last: a summary.json newer than the other files marks a set whole
            order = [n for n in names if n != "summary.json"] + [n for n in names if n == "summary.json"]
            staged.publish(order)
    finally:
        lanes.reap(workers)
    return [Path(out_dir) / n for n in names]


DRAWINGS = frozenset({"svg", "dxf", "pdf", "ifc", "usd"})  # the kinds drawn from the scene
TABLES = ("csv", "xlsx", "parquet")  # written by one call (they share the links table)
# the calls in the order of KINDS: a kind's own, "tables" for TABLES
_CALLS = ("svg", "dxf", "pdf", "tables", "slurm", "dot", "ifc", "usd", "labels", "turnup", "dcim")


def _write_into(
    design: Design,
    wanted: set[str],
    out: Path,
    summary: dict[str, Any],
    scene: Scene | None,
    jobs: int,
    workers: list[Any],
) -> list[Path]:
    """Write the exports ``wanted`` into the folder ``out`` (``jobs`` > 0: up to that many in forked
    workers, layout/export/lanes.py, appended to ``workers`` for the caller to reap), and return their
    paths in the order of :data:`KINDS`. With
    ``summary`` wanted, each process hashes the files it wrote for summary.json as soon as they are
    written (the workers' files in the workers, side by side), not all of them here at the end."""
    from layout.export import lanes
    from layout.files import file_digests

    done: dict[str, list[Path]] = {}
    digests: dict[str, dict[str, Any]] = {}
    hashing = "summary" in wanted
    here = set(wanted) - {"summary"}
    parallel = jobs > 0 and lanes.can_fork()
    try:
        for kinds, needs_scene in lanes.LANES:
            mine = kinds & here
            if not parallel or len(workers) >= jobs or not mine or mine == here:
                continue
            if needs_scene:
                scene = _scene(design, summary, scene)

            workers.append(lanes.fork(mine, partial(_write_names, design, out, summary, scene, hashing)))
            here -= mine
        if here & DRAWINGS:
            scene = _scene(design, summary, scene)
        done = _write_calls(design, frozenset(here), out, summary, scene)
        if hashing:
            digests.update(file_digests([p for ps in done.values() for p in ps]))
        for part, hashed in lanes.join(workers):
            done.update({c: [out / n for n in ns] for c, ns in part.items()})
            digests.update(hashed)
    except BaseException:
        lanes.stop(workers)
        raise
    written = [p for c in _CALLS for p in done.get(c, [])]
    if hashing:  # last: it lists the set's other files with their SHA-256
        from layout.files import write_text

        whole = {**summary, "files": dict(sorted(digests.items()))}
        written.insert(
            0, write_text(out / "summary.json", json.dumps(whole, indent=2, sort_keys=True) + "\n")
        )
    return written


def _scene(design: Design, summary: dict[str, Any], scene: Scene | None) -> Scene:
    """The drawings' scene: the one given (with the summary), else worked out from the design."""
    from layout.scene import scene_of

    scene = scene_of(design, summary) if scene is None else scene
    return scene if scene.summary else dataclasses.replace(scene, summary=summary)


def _write_names(
    design: Design,
    out: Path,
    summary: dict[str, Any],
    scene: Scene | None,
    hashing: bool,
    wanted: frozenset[str],
) -> tuple[dict[str, list[str]], dict[str, dict[str, Any]]]:
    """:func:`_write_calls` in a worker: the file names per call, for the parent, and (``hashing``) each
    file's size and SHA-256 (:func:`layout.files.file_digests`)."""
    from layout.files import file_digests

    calls = _write_calls(design, wanted, out, summary, scene)
    hashed = file_digests([p for ps in calls.values() for p in ps]) if hashing else {}
    return {c: [p.name for p in ps] for c, ps in calls.items()}, hashed


def _write_calls(
    design: Design, wanted: frozenset[str], out: Path, summary: dict[str, Any], scene: Scene | None
) -> dict[str, list[Path]]:
    """Write the exports ``wanted`` (not ``summary``) into ``out``: the paths per call of :data:`_CALLS`."""
    from layout.files import safe_name

    stem = safe_name(design.inputs.stem)
    w: dict[str, list[Path]] = {}
    if "svg" in wanted:
        from layout.export.svg import write_svgs

        assert scene is not None
        w["svg"] = write_svgs(scene, out, stem)
    if "dxf" in wanted:
        from layout.export.dxf import write_scene

        assert scene is not None
        w["dxf"] = [write_scene(scene, out / f"{stem}.dxf")]
    if "pdf" in wanted:
        from layout.export.pdf import write_pdf

        w["pdf"] = [write_pdf(design, out / f"{stem}.pdf", scene=scene, summary=summary)]
    if wanted & set(TABLES):
        from layout.export import tables

        w["tables"] = tables.write_tables_of(
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

        w["slurm"] = write_slurm(design, out, stem)
    if "dot" in wanted:
        from layout.export.dot import write_dot

        w["dot"] = write_dot(design, out, stem)
    if "ifc" in wanted:
        from layout.export.ifc import write_ifc

        assert scene is not None
        w["ifc"] = [write_ifc(design, out / f"{stem}.ifc", scene)]
    if "usd" in wanted:
        from layout.export.usd import write_usd

        assert scene is not None
        w["usd"] = [write_usd(design, out / f"{stem}.usda", scene)]
    if "labels" in wanted:
        from layout.export.plant_files import write_labels

        w["labels"] = write_labels(design, out, stem)
    if "turnup" in wanted:
        from layout.export.plant_files import write_turnup

        w["turnup"] = write_turnup(design, out, stem)
    if "dcim" in wanted:
        from layout.export.dcim import write_dcim

        w["dcim"] = write_dcim(design, out, stem)
    return w
