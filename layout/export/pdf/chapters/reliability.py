"""The reliability chapter: how often a node-side optical link fails, how often any link of the backend
fabric does (copper too), and what a failure costs in GPU-days with checkpoint restart and with
in-memory recovery, worst case and expected.
"""

from __future__ import annotations

from typing import Any

from reportlab.platypus import (
    Flowable,
    Spacer,
)

from layout.export.pdf.document import h1, h2
from layout.export.pdf.flowables import Cell, Col, data_table, kv_table
from layout.export.pdf.formatting import fmt_int, fmt_num, para
from layout.export.pdf.theme import FRAME_W


def story(design: Any, summary: dict[str, Any]) -> list[Flowable]:
    rel = design.reliability
    cat = design.inputs.catalog
    node, every_link = design.figures["ttff_min"], design.figures["ttff_all_links_min"]
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
            f"{rel['node_optical_modules']:,} node-side modules on {rel['node_optical_links']:,} links, the "
            f"{node.label} is {node.text} ({rel['failures_per_day']:,.2f} failures a day)."
        )
    )
    out += _media_table(cat, "Node-side medium", rel["by_media"], with_modules=True)
    every = rel.get("all_links")
    if every:
        out.append(
            para(
                f"Counting every link of the backend fabric with its medium's MTBF, copper jumpers and "
                f"switch-to-switch optics too ({every['links']:,} links), the {every_link.label} is "
                f"{every_link.text} ({every['failures_per_day']:,.2f} failures a day)."
            )
        )
        out += _media_table(cat, "Other backend links, medium", every["by_media"], with_modules=False)
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
                (
                    "Checkpoint restart, expected GPU-days lost per failure",
                    fmt_num(ck["restart_expected_gpu_days"], 2),
                ),
                *(
                    [
                        (
                            "Every backend link: restart, GPU-days lost per day, worst / expected",
                            f"{fmt_num(every['restart_gpu_days_per_day']['worst'], 2)} / "
                            f"{fmt_num(every['restart_gpu_days_per_day']['expected'], 2)}",
                        ),
                        (
                            "Every backend link: in-memory, GPU-days lost per day",
                            fmt_num(every["in_memory_gpu_days_per_day"]["worst"], 2),
                        ),
                    ]
                    if every
                    else []
                ),
            ],
            width=FRAME_W * 0.8,
        ),
    ]
    return out


def _media_table(cat: Any, title: str, by_media: dict[str, Any], with_modules: bool) -> list[Flowable]:
    """Links (and modules) and MTBF per medium; nothing when there are none."""
    rows: list[list[Cell]] = [
        [
            cat.media[k].name if k in cat.media else k,
            fmt_int(v["links"]),
            *([fmt_int(v["modules"])] if with_modules else []),
            f"{v['mtbf_years']:g}",
        ]
        for k, v in by_media.items()
    ]
    if not rows:
        return []
    cols = [
        Col(title, 220 if with_modules else 300),
        Col("Links", 80, True),
        *([Col("Modules", 80, True)] if with_modules else []),
        Col("MTBF years", 80, True),
    ]
    return [data_table(cols, rows), Spacer(1, 6)]
