"""The reliability chapter: how often a node-side optical link fails, and what a failure costs in
GPU-days with checkpoint restart and with in-memory recovery.
"""

from __future__ import annotations

from typing import Any

from reportlab.platypus import (
    Flowable,
    Spacer,
)

from layout.export.pdf.document import h1, h2
from layout.export.pdf.flowables import Cell, Col, data_table, kv_table
from layout.export.pdf.formatting import fmt_int, fmt_minutes, fmt_num, para
from layout.export.pdf.theme import FRAME_W


def story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    rel = design.reliability
    cat = design.inputs.catalog
    ttff = rel["time_to_first_failure_min"]
    out: list[Flowable] = [*h1("Reliability", new_page=False)]
    src = {
        "site": "the site file's cluster.link_mtbf_years",
        "nic": "the NIC's catalog MTBF",
        "media": "each medium's catalog MTBF",
    }.get(rel["mtbf_source"], rel["mtbf_source"])
    out.append(
        para(
            "A synchronous training job stops when any node-side optical link fails. Failures are taken as "
            f"independent with constant rates (MTBF from {src}), so their rates add up: with "
            f"{rel['node_optical_modules']:,} node-side modules on {rel['node_optical_links']:,} links, one fails on "
            f"average every {fmt_minutes(ttff)}, {rel['failures_per_day']:,.2f} times a day."
        )
    )
    rows: list[list[Cell]] = [
        [
            cat.media[k].name if k in cat.media else k,
            fmt_int(v["links"]),
            fmt_int(v["modules"]),
            f"{v['mtbf_years']:g}",
        ]
        for k, v in rel["by_media"].items()
    ]
    if rows:
        cols = [
            Col("Node-side medium", 220),
            Col("Links", 80, True),
            Col("Modules", 80, True),
            Col("MTBF years", 80, True),
        ]
        out += [data_table(cols, rows), Spacer(1, 6)]
    ck = rel["checkpoint"]
    out += [
        *h2("What a failure costs"),
        para(
            f"{ck['gpus']:,} GPUs at {ck['step_s']:g} s per step with a checkpoint every {ck['checkpoint_every_steps']:,} "
            f"steps. A failure just before a checkpoint redoes {ck['checkpoint_every_steps'] - 1:,} steps on every GPU. "
            f"In-memory (RDMA) recovery redoes one step and copies {ck['hbm_gb']:g} GB of state per GPU back at "
            f"{ck['link_gbps']:,} Gb/s ({ck['copy_s']:g} s)."
        ),
        kv_table(
            [
                ("Checkpoint restart, GPU-days lost per failure", fmt_num(ck["restart_gpu_days"], 2)),
                ("In-memory recovery: the step redone, GPU-days", fmt_num(ck["in_memory_step_gpu_days"], 2)),
                ("In-memory recovery: the state copy, GPU-days", fmt_num(ck["in_memory_copy_gpu_days"], 2)),
                ("In-memory recovery, GPU-days lost per failure", fmt_num(ck["in_memory_gpu_days"], 2)),
                ("Saved per failure, GPU-days", fmt_num(ck["saved_gpu_days"], 2)),
                ("Checkpoint restart, GPU-days lost per day", fmt_num(ck["restart_gpu_days_per_day"], 2)),
                ("In-memory recovery, GPU-days lost per day", fmt_num(ck["in_memory_gpu_days_per_day"], 2)),
            ],
            width=FRAME_W * 0.8,
        ),
    ]
    return out
