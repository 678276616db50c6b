"""`dclayout fabric --gpus N ...`: size a GPU fabric without a site (counts, tiers, node optics, TTFF)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from layout.errors import EXIT_EXPORT_FAILED, EXIT_OK
from layout.figures import FABRIC_TTFF, text


def _ratio(text: str) -> float:
    """``7`` or ``7:1``."""
    head, sep, tail = text.partition(":")
    try:
        value = float(head)
        if sep and float(tail) != 1.0:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not an oversubscription ratio: {text!r} (allowed: a number >= 1, or R:1)"
        ) from None
    return value


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "fabric",
        help="size a folded-Clos GPU fabric without a site",
        description="Size the backend fabric of a GPU cluster: switches and links per tier, node-side optics "
        "and the time to the first link failure; --csv writes every device and link.",
    )
    p.add_argument(
        "--gpus", type=int, required=True, metavar="N", help="number of GPUs (a multiple of the server's)"
    )
    p.add_argument(
        "--server",
        default="hgx-h100",
        metavar="ID",
        help="catalog server (default: hgx-h100, seed 000's 8-GPU server with 8 PCIe ConnectX-7)",
    )
    p.add_argument("--switch", default="qm9700", metavar="ID", help="catalog switch (default: qm9700)")
    p.add_argument(
        "--design",
        default="rail",
        metavar="rail|mor",
        help="rail-optimized or middle-of-rack (default: rail)",
    )
    p.add_argument(
        "--pod-gpus", type=int, default=0, metavar="N", help="GPUs per non-blocking pod; 0: one pod (default)"
    )
    p.add_argument(
        "--oversubscription",
        type=_ratio,
        default=1.0,
        metavar="R",
        help="between pods, R or R:1 (default: 1)",
    )
    p.add_argument(
        "--nic", default="cx7", metavar="ID", help="catalog NIC (default: cx7; cedar7: dual-port modules)"
    )
    p.add_argument(
        "--nvl72-wiring",
        default=None,
        metavar="ra|packed",
        help="NVL72 racks on rails: ra as the DGX SuperPOD GB200 RA (a rail group per tray NIC position, "
        "a leaf per rack; the default on InfiniBand) or packed (tray position i on rail i; the default elsewhere)",
    )
    p.add_argument(
        "--link-mtbf-years",
        type=float,
        default=None,
        metavar="Y",
        help="MTBF of one node-side optical link (default: the NIC's figure, else 5)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument(
        "--csv",
        metavar="DIR",
        default=None,
        help="also write DIR/fabric-devices.csv and DIR/fabric-links.csv (every device and link)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from layout.fabric import size

    fab = size(
        gpus=args.gpus,
        server=args.server,
        switch=args.switch,
        design=args.design,
        pod_gpus=args.pod_gpus,
        oversubscription=args.oversubscription,
        nic=args.nic,
        link_mtbf_years=args.link_mtbf_years,
        nvl72_wiring=args.nvl72_wiring,
    )
    summary = fab.summary()
    if summary["pods_cost_more"]:
        print(f"dclayout fabric: warning: {pods_cost_more(summary)}", file=sys.stderr)
    written = []
    if args.csv is not None:
        from layout.export.tables import write_fabric_csv

        try:
            written = write_fabric_csv(fab, args.csv)
        except OSError as e:
            print(f"dclayout fabric: --csv: export failed: {e}", file=sys.stderr)
            return EXIT_EXPORT_FAILED
    if args.json:
        import json

        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        _print_table(summary)
        for path in written:
            print(f"wrote {path}")
    return EXIT_OK


def pods_cost_more(s: dict[str, Any]) -> str:
    """One line with both figures when oversubscribed pods need more switches than one non-blocking
    fabric of the same GPUs (the fabric summary's ``pods_cost_more``), and which was built."""
    m = s["pods_cost_more"]
    flat = m["non_blocking"]
    built = (
        "built the non-blocking one" if m["built"] == "non_blocking" else "kept the pods (each a building's)"
    )
    return (
        f"{m['pods']} pods of {m['pod_gpus']:,} GPUs at {m['oversubscription']:g}:1 need "
        f"{m['switches']:,} switches and {m['links']:,} links ({m['tiers']} tiers), more than one "
        f"non-blocking fabric of the {s['gpus']:,} GPUs: {flat['switches']:,} switches and "
        f"{flat['links']:,} links ({flat['tiers']} tiers); {built}"
    )


def _print_table(s: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    pods = f"{s['pods']} pod{'s' if s['pods'] > 1 else ''} of {s['pod_gpus']:,} GPUs"
    above = f", {s['oversubscription']:g}:1 between pods" if s["pods"] > 1 else ", non-blocking"
    design = "rail-optimized" if s["design"] == "rail" else "middle-of-rack"
    table = Table()
    table.add_column("tier", justify="right")
    table.add_column("switches", justify="right")
    table.add_column("links below", justify="right")
    table.add_column("kind")
    names = [("leaf", "gpu_leaf"), ("spine", "leaf_spine"), ("core", "spine_core"), ("super", "core_super")]
    for tier, (role, kind) in enumerate(names, start=1):
        if tier <= s["tiers"]:
            table.add_row(f"{tier} {role}", f"{s['switches'][role]:,}", f"{s['links'][kind]:,}", kind)
    table.add_section()
    table.add_row("total", f"{s['switches']['total']:,}", f"{s['links']['total']:,}", "")
    rel = s["reliability"]
    ttff = rel["time_to_first_failure_min"]
    console = Console()
    console.print(
        f"{s['gpus']:,} GPUs on {s['servers']:,} x {s['server']}, {design} on {s['switch']} (radix {s['radix']})"
    )
    console.print(f"{s['tiers']} tiers, {pods}{above}")
    if s["nvl72_wiring"] == "ra":
        console.print(
            "NVL72 wiring ra (DGX SuperPOD GB200 RA): per SU a rail group per compute-tray NIC position, "
            "a leaf per rack, the groups joined by the core"
        )
    elif s["nvl72_wiring"] == "packed":
        console.print("NVL72 wiring packed: tray position i of every rack of an SU on rail i")
    if s["planes"] > 1:
        of = "both" if s["planes"] == 2 else f"all {s['planes']}"
        console.print(f"{s['planes']} planes, each its own fabric (the counts are of {of})")
    su = s["scalable_unit"]
    console.print(
        f"scalable unit: {su['servers']:,} servers = {su['gpus']:,} GPUs in {su['racks']:,} racks "
        f"(NVLink domain {su['nvlink_gpus']} GPUs)"
    )
    console.print(table)
    console.print(f"node-side optics: {s['node_optics']:,} modules ({s['nic']})")
    line = f"{FABRIC_TTFF.label}: {text(FABRIC_TTFF.key, ttff)}"
    if ttff is None:
        console.print(f"{line} (no node-side optical links: copper by design)")
    else:
        console.print(f"{line} at {rel['link_mtbf_years']:g}-year link MTBF")
