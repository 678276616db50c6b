"""`dclayout compare SITE [--out DIR] [--json] [--jobs N] [--scheduler ADDR]`: seed 000's network alternatives for one site
side by side (see layout.engine.compare): a table on screen (or one JSON object with ``--json``) and
``DIR/compare.csv`` (default DIR: ``outputs/<site file stem>/``). The variants run on Dask: a local
cluster of ``--jobs`` workers, or the cluster at ``--scheduler``; the CSV is the same bytes either way.

Exit codes: 0 done, 2 bad input (a ``--scheduler`` address that is not one, or where no scheduler
answers or none has a worker, is one line too), 3 the CSV could not be written, or the Dask cluster was
lost during the run (its scheduler, or every worker): the CSV is written with the variants that finished
(the others are rows whose ``error`` says what was lost) and one line names what was lost.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from layout.commands import add_scheduler_option, add_templates_option, load_inputs
from layout.figures import SPEC, text

# the headline figures of the second table, as every output labels and writes them (layout/figures.py)
MONEY = ("cable_km", "network_power_mw", "cost_total_usd", "cost_without_power_chain_usd", "cost_network_usd")
RELIABILITY = ("ttff_min", "ttff_all_links_min", "tray_fill_max_pct", "violations")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"not a number of processes: {text!r} (allowed: 1, 2, ...)")
    return n


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "compare",
        help="compare InfiniBand, Spectrum-X and Tomahawk 5 fabrics, rail vs middle-of-rack, with and without Cedar-7",
        description="Run the whole pipeline for 20 network variants of the site's cluster and compare switches, "
        "optics, copper share, cable, network power, cost and time to first failure; rank the ones that can be "
        "built (no violation) by capital cost.",
    )
    p.add_argument("site", metavar="SITE", help="site TOML file")
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="folder for compare.csv (default: outputs/<site file stem>/)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument(
        "--jobs", type=_positive, default=None, metavar="N", help="worker processes (default: one per core)"
    )
    add_scheduler_option(p)
    add_templates_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from layout.engine import Engine, Failed
    from layout.engine import compare as compare_mod
    from layout.errors import EXIT_EXPORT_FAILED, EXIT_OK
    from layout.export.tables import json_text, write_csv

    started = time.monotonic()
    inputs = load_inputs(args.site, args.templates)
    todo = compare_mod.variants()
    lost: list[int] = []
    with Engine(args.scheduler, compare_mod.workers(args.jobs, len(todo))) as engine:
        table = compare_mod.compare_on(
            engine, inputs, todo, lambda i, r: lost.append(i) if isinstance(r, Failed) and r.lost else None
        )
    seconds = time.monotonic() - started
    from layout.files import safe_name

    out_dir = Path(args.out) if args.out else Path("outputs") / safe_name(inputs.stem)
    try:
        path = write_csv(table, out_dir / "compare.csv")
    except OSError as e:
        print(f"{args.site}: export failed: {e}", file=sys.stderr)
        return EXIT_EXPORT_FAILED
    if engine.lost:  # what finished is written; the one line says what was lost
        print(
            f"{args.site}: stopped: {engine.lost}; {len(todo) - len(lost)} of {len(todo)} variants "
            f"finished, written to {path}",
            file=sys.stderr,
        )
        return EXIT_EXPORT_FAILED
    if args.json:
        rows = [{k: v for k, v in r.items()} for r in table.to_dict(orient="records")]
        top = compare_mod.best(table)
        sys.stdout.write(
            json_text(
                {
                    "site": inputs.site.site.name,
                    "csv": str(path),
                    "best": top["variant"] if top else None,
                    "variants": rows,
                }
            )
        )
    else:
        _print_table(args.site, inputs.site.site.name, table, path, seconds)
    return EXIT_OK


def _figure_table(title: str, keys: tuple[str, ...]) -> Any:
    """A table of one variant a row and the headline figures ``keys`` as columns, under their labels."""
    from rich import box
    from rich.table import Table

    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("variant", justify="left", no_wrap=True)
    for key in keys:
        table.add_column(SPEC[key].label, justify="right")
    return table


def _num(v: Any, fmt: str = ",.0f") -> str:
    import math

    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return format(v, fmt)


def _print_table(site: str, name: str, df: Any, path: Any, seconds: float) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    optical = [
        c for c in df.columns if c.startswith("optics_") and c != "optics_total" and df[c].fillna(0).any()
    ]
    rows = df.to_dict(orient="records")
    fabric = Table(title=f"{name}: switches and optics", title_justify="left", box=box.SIMPLE_HEAD)
    heads = [
        "variant",
        "rank",
        "tiers",
        "leaf",
        "spine",
        "core",
        "super",
        *(c.removeprefix("optics_") for c in optical),
    ]
    for h in [*heads, "node optics", "copper %"]:
        fabric.add_column(h, justify="left" if h == "variant" else "right")
    money = _figure_table(f"{name}: cable, power and cost", MONEY)
    rel = _figure_table(f"{name}: reliability, trays and design rules", RELIABILITY)
    last = ""
    for r in rows:
        if last and r["fabric"] != last:
            fabric.add_section()
            money.add_section()
            rel.add_section()
        last = r["fabric"]
        if r["error"]:
            fabric.add_row(r["variant"], "-", f"[red]{r['error']}[/red]")
            money.add_row(r["variant"], "[red]cannot be built[/red]")
            rel.add_row(r["variant"], "[red]cannot be built[/red]")
            continue
        fabric.add_row(
            r["variant"], _num(r["rank"]), _num(r["tiers"]), *(_num(r[f"switches_{t}"]) for t in ("leaf", "spine", "core", "super")),
            *(_num(r[c]) for c in optical), _num(r["node_optics"]), _num(r["copper_share_pct"], ".1f"),
        )  # fmt: skip
        money.add_row(r["variant"], *(text(k, r[k]) for k in MONEY))
        rel.add_row(r["variant"], *(text(k, r[k]) for k in RELIABILITY))
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)
    console.print(fabric)
    console.print(money)
    console.print(rel)
    console.print(
        "tiers and switches: backend (GPU) fabric; optics: transceiver modules of every network, by medium; "
        "node optics: server-end modules on GPU links; copper %: GPU fabric links on DAC/AEC; network MW: every "
        "switch with its optics + server-end modules"
    )
    console.print(_best_line(df))
    console.print(f"{site}: {len(df)} variants in {seconds:.1f} s; wrote {path}")


def _best_line(df: Any) -> str:
    """Which buildable variant is cheapest, and how many were not ranked (violations or errors)."""
    from layout.engine.compare import best

    top = best(df)
    unranked = int(df["rank"].isna().sum())
    left = f"; {unranked} not ranked (violations or cannot be built)" if unranked else ""
    if top is None:
        return f"best: none of the {len(df)} variants can be built without a violation{left}"
    return f"best: {top['variant']} ({text('cost_total_usd', top['cost_total_usd'])}, {SPEC['cost_total_usd'].label}){left}"
