"""The violations chapter: every design-rule breach by kind and location."""

from __future__ import annotations

from typing import Any

from reportlab.platypus import (
    Flowable,
)

from layout.export.pdf.document import h1
from layout.export.pdf.flowables import Cell, Col, data_table
from layout.export.pdf.formatting import para
from layout.export.pdf.theme import FRAME_W


def story(design: Any) -> list[Flowable]:
    out: list[Flowable] = [*h1("Violations", new_page=False)]
    vs = sorted(design.violations, key=lambda v: (v.kind, v.where))
    if not vs:
        return [*out, para("No design rule is breached.")]
    out.append(
        para(
            f"{len(vs)} design-rule {'breach' if len(vs) == 1 else 'breaches'}, by kind and location. None stops "
            "the design; dclayout design --strict fails on them."
        )
    )
    rows: list[list[Cell]] = [[v.kind, v.where, v.message, v.suggestion or "-"] for v in vs]
    cols = [Col("Kind", 55), Col("Where", 85, ids=True), Col("What", 210), Col("Suggestion", FRAME_W - 350)]
    out.append(data_table(cols, rows))
    return out
