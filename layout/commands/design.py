"""`dclayout design SITE [--out DIR] [--strict] [--svg/--no-svg] [--dxf] [--pdf] [--csv] [--xlsx] [--parquet]
[--slurm] [--dot] [--ifc] [--usd] [--labels] [--turnup] [--dcim]`:
run the whole pipeline on a site and write ``DIR/summary.json``, one SVG floor plan per hall, and the exports
asked for (default DIR: ``outputs/<site file stem>/``; file names from the site file's stem).

Exit codes (DESIGN.md): 0 done (violations are reported), 1 violations under ``--strict``, 2 bad input,
3 an export failed (nothing half-written is left behind).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from layout.commands import add_templates_option, load_inputs
from layout.errors import printable
from layout.export import KINDS
from layout.figures import text

SHOW_PROGRESS_AFTER_S = 1.0
# each a flag and a kind of export.write (every kind but the summary, which is always written)
EXPORT_FLAGS = tuple(k for k in KINDS if k != "summary")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("design", help="place racks, check power and write summary.json + hall SVGs")
    p.add_argument("site", metavar="SITE", help="site TOML file")
    p.add_argument(
        "--out", default=None, metavar="DIR", help="output folder (default: outputs/<site file stem>/)"
    )
    p.add_argument("--strict", action="store_true", help="exit 1 when the design has violations")
    p.add_argument(
        "--svg",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="write one SVG floor plan per hall and a site plan",
    )
    p.add_argument("--dxf", action="store_true", help="write STEM.dxf (millimetres, one layout per hall)")
    p.add_argument("--pdf", action="store_true", help="write STEM.pdf, the design report with the BOM")
    p.add_argument("--csv", action="store_true", help="write STEM-bom.csv, STEM-links.csv and STEM-ports.csv")
    p.add_argument("--xlsx", action="store_true", help="write STEM.xlsx (BOM, racks, links, ports, summary)")
    p.add_argument(
        "--parquet",
        action="store_true",
        help="write STEM-bom.parquet and STEM-links.parquet (the CSV tables)",
    )
    p.add_argument(
        "--slurm",
        action="store_true",
        help="write STEM-topology.conf, Slurm's topology/tree file (NVLink racks: also the block topology)",
    )
    p.add_argument(
        "--dot",
        action="store_true",
        help="write STEM-fabric.dot, the fabric as a Graphviz graph (every network)",
    )
    p.add_argument(
        "--ifc",
        action="store_true",
        help="write STEM.ifc, an IFC4 BIM model of halls, racks, columns, trays, busways, CDUs (needs [bim])",
    )
    p.add_argument(
        "--usd",
        action="store_true",
        help="write STEM.usda, an OpenUSD stage of the site for a digital twin (needs [twin])",
    )
    p.add_argument(
        "--labels",
        action="store_true",
        help="write STEM-labels.csv, STEM-labels.pdf (every cable, trunk, panel and port) and STEM-pull.csv",
    )
    p.add_argument(
        "--turnup",
        action="store_true",
        help="write STEM-cablemap.csv and STEM-backend.topo, the cable map for the fabric's bring-up",
    )
    p.add_argument(
        "--dcim",
        action="store_true",
        help="write STEM-dcim-*.csv and STEM-dcim-device-types.yaml for NetBox or Nautobot (dclayout push)",
    )
    add_templates_option(p)
    p.set_defaults(run=run)


class _Progress:
    """A rich progress line on stderr, shown only when the run takes longer than a second.

    ``timer``: what calls :meth:`_show` once ``SHOW_PROGRESS_AFTER_S`` have passed (``threading.Timer``;
    tests hand in one they fire themselves, so they need no clock)."""

    def __init__(self, stages: tuple[str, ...], timer: Callable[..., Any] = threading.Timer):
        from rich.console import Console

        self.console = Console(stderr=True)
        self.stages = stages
        self.stage = stages[0] if stages else ""
        self.done = 0
        self.lock = threading.Lock()
        self.progress: Any = None
        self.task: Any = None
        self.closed = False
        self.timer = timer(SHOW_PROGRESS_AFTER_S, self._show)
        self.timer.daemon = True
        if self.console.is_terminal:
            self.timer.start()

    def __call__(self, stage: str) -> None:
        with self.lock:
            if stage in self.stages:
                self.done = self.stages.index(stage)
            self.stage = stage
            if self.progress is not None:  # drawn now, not at the next tick: each stage is seen
                self.progress.update(self.task, completed=self.done, description=stage, refresh=True)

    def _show(self) -> None:
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        with self.lock:
            if self.closed:  # the run ended while the timer fired: nothing to show, nothing to stop
                return
            self.progress = Progress(
                SpinnerColumn(), TextColumn("{task.description:<12}"), BarColumn(), TimeElapsedColumn(),
                console=self.console, transient=True,
            )  # fmt: skip
            self.task = self.progress.add_task(self.stage, total=len(self.stages), completed=self.done)
            self.progress.start()

    def close(self) -> None:
        self.timer.cancel()
        with self.lock:
            self.closed = True
            if self.progress is not None:
                self.progress.stop()


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from layout import design as design_mod
    from layout import export
    from layout.errors import EXIT_EXPORT_FAILED, EXIT_OK, EXIT_VIOLATIONS
    from layout.export import lanes
    from layout.files import safe_name

    started = time.monotonic()
    inputs = load_inputs(args.site, args.templates)
    progress = _Progress(design_mod.STAGES)
    try:
        design = design_mod.run(inputs, progress)
    finally:
        progress.close()
    stem = safe_name(inputs.stem)
    if stem != inputs.stem:
        print(
            printable(f"{args.site}: note: the file name {inputs.stem!r} is not a safe output name; "
                      f"writing the outputs as {stem!r}"),
            file=sys.stderr,
        )  # fmt: skip
    out_dir = Path(args.out) if args.out else Path("outputs") / stem
    summary = design.summary()
    kinds = ["summary"] + [k for k in EXPORT_FLAGS if getattr(args, k)]
    try:
        written = export.write(design, kinds, out_dir, summary=summary, jobs=lanes.default_jobs())
    except Exception as e:  # noqa: BLE001 - any exporter failure is exit 3, never a traceback
        print(printable(f"{args.site}: export failed: {type(e).__name__}: {e}"), file=sys.stderr)
        return EXIT_EXPORT_FAILED
    _print_summary(args.site, summary, written, time.monotonic() - started)
    return EXIT_VIOLATIONS if args.strict and design.violations else EXIT_OK


def _print_summary(site: str, s: dict[str, Any], written: list[Any], seconds: float) -> None:
    racks = s["racks"]
    by_t = ", ".join(f"{n:,} {t}" for t, n in racks["by_template"].items())
    sw = s["switches"]
    tiers = ", ".join(f"{sw[k]:,} {k}" for k in ("leaf", "spine", "core", "super") if sw.get(k))
    fig = s["figures"]

    def shown(*keys: str) -> str:  # headline figures as every output labels and writes them
        return "; ".join(f"{fig[k]['label']}: {text(k, fig[k]['value'])}" for k in keys)

    lines = [
        f"{site}: {s['site']}",
        f"  {s['gpus']:,} GPUs on {s['servers']:,} servers; {racks['total']:,} racks ({by_t})"
        + (f"; {racks['missing']:,} racks do not fit" if racks.get("missing") else ""),
        f"  backend switches: {tiers}; {s['links']['total']:,} backend links, "
        + shown("copper_share_pct", "switches_all"),
        "  " + shown("it_mw", "facility_mw", "annual_twh", "annual_cost_usd", "max_rack_kw"),
        "  " + shown("cost_total_usd", "cost_without_power_chain_usd"),
        "  " + shown("ttff_min", "ttff_all_links_min"),
        "  "
        + shown("cable_km", "tray_fill_max_pct")
        + (f"; {shown('links_cross_building')}" if fig["links_cross_building"]["value"] else ""),
        "  " + shown("trunks", "patch_panels", "worst_channel_db", "install_hours"),
    ]
    v = s["violations"]
    if v:
        lines.append(f"  {len(v)} violation(s):")
        lines += [f"    {x['kind']} at {x['where']}: {x['message']}" for x in v]
    else:
        lines.append("  no violations")
    folder = written[0].parent if written else "-"
    lines.append(f"  wrote {len(written)} file(s) to {folder}/ in {seconds:.1f} s")
    print("\n".join(printable(line) for line in lines))  # names from the site or the command line
