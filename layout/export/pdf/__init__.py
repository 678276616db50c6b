"""The PDF design report: a reportlab platypus adapter over a finished Design.

Only this package (and the commands that call it) imports reportlab; the core never does. Every figure
comes from the Design (the headline ones from Design.summary(), as in summary.json); the report only
sums, sorts, groups and formats them. The bytes are deterministic: reportlab's invariant mode, the
creation date taken from the site file's date, no clock.

Layout: A4 portrait, a cover with the headline figures, a table of contents, then one chapter per
concern (plans, power, network, bill of materials, reliability, violations, assumptions). Long tables
are LongTables that split across pages and repeat their header row.

Modules: ``theme`` (page, colours, styles), ``formatting`` (figures and safe text), ``document`` (page
templates, headings, layout into bytes), ``flowables`` (tables, cover), ``charts``, ``plan`` (the floor
plans, self-contained), ``chapters/`` (one module per chapter) and ``report`` (the assembly). The names
other modules and tests use are importable from here.
"""

# ruff: noqa: E402 - the switch below must come before the chapters import reportlab's shapes
from reportlab import rl_config

# reportlab checks every attribute set on a drawing's shape against its declared type unless this is off
# when reportlab.graphics.shapes is first imported (next, through the chapters): the report's
# thousands of shapes (plans, single-line diagrams) are built by this package's code, which the tests
# render, so the check would only cost ~10% of the campus report's CPU. The bytes are the same.
rl_config.shapeChecking = 0

from layout.export.pdf.chapters.assumptions import Figure, catalog_figures
from layout.export.pdf.chapters.cover import meta_of
from layout.export.pdf.charts import (
    LENGTH_BIN_EDGES_M,
    MEDIA_COLOURS,
    MEDIA_LABELS,
    Budget,
    budget_bars,
    length_bins,
    length_histogram,
    media_mix_chart,
    use_colour,
)
from layout.export.pdf.document import (
    PageCounter,
    ReportDoc,
    ReportMeta,
    contents_page,
    h1,
    h2,
    render,
    table_of_contents,
)
from layout.export.pdf.flowables import Cell, Col, Kpi, bold, cover, data_table, kv_table
from layout.export.pdf.formatting import (
    fmt_int,
    fmt_num,
    fmt_pct,
    fmt_price,
    fmt_usd,
    para,
    safe,
    safe_plain,
)
from layout.export.pdf.plan import (
    BUILDING_FILL,
    FILL_COLOURS,
    KEEPOUT_FILL,
    KW_BANDS,
    NETWORK_EDGE,
    NETWORK_KINDS,
    NO_TRAYS,
    TRAY_COLOUR,
    TRAY_FULL,
    Batch,
    HallOutline,
    Plan,
    PlanRacks,
    PlanRow,
    PlanTrays,
    SiteOutline,
    hall_plan,
    kw_band,
    nice_length,
    site_plan,
)
from layout.export.pdf.report import build_story, render_pdf, write_pdf
from layout.export.pdf.theme import (
    ACCENT,
    BAD_RED,
    FONT,
    FONT_BOLD,
    FONT_ITALIC,
    FRAME_H,
    FRAME_W,
    INK,
    MARGIN_BOTTOM,
    MARGIN_TOP,
    MARGIN_X,
    MUTED,
    OK_GREEN,
    PAGE_H,
    PAGE_W,
    RULE,
    STYLES,
    SUBTOTAL,
    WARN_AMBER,
    ZEBRA,
)

__all__ = [
    "ACCENT",
    "BAD_RED",
    "BUILDING_FILL",
    "FONT",
    "FONT_BOLD",
    "FONT_ITALIC",
    "FRAME_H",
    "FRAME_W",
    "INK",
    "FILL_COLOURS",
    "KEEPOUT_FILL",
    "KW_BANDS",
    "LENGTH_BIN_EDGES_M",
    "MARGIN_BOTTOM",
    "MARGIN_TOP",
    "MARGIN_X",
    "MEDIA_COLOURS",
    "MEDIA_LABELS",
    "MUTED",
    "NETWORK_EDGE",
    "NETWORK_KINDS",
    "NO_TRAYS",
    "OK_GREEN",
    "PAGE_H",
    "PAGE_W",
    "RULE",
    "STYLES",
    "SUBTOTAL",
    "TRAY_COLOUR",
    "TRAY_FULL",
    "WARN_AMBER",
    "ZEBRA",
    "Batch",
    "Budget",
    "Cell",
    "Col",
    "Figure",
    "HallOutline",
    "Kpi",
    "PageCounter",
    "Plan",
    "PlanRacks",
    "PlanRow",
    "PlanTrays",
    "ReportDoc",
    "ReportMeta",
    "SiteOutline",
    "bold",
    "budget_bars",
    "build_story",
    "catalog_figures",
    "contents_page",
    "cover",
    "data_table",
    "fmt_int",
    "fmt_num",
    "fmt_pct",
    "fmt_price",
    "fmt_usd",
    "h1",
    "h2",
    "hall_plan",
    "kv_table",
    "kw_band",
    "length_bins",
    "length_histogram",
    "media_mix_chart",
    "meta_of",
    "nice_length",
    "para",
    "render",
    "render_pdf",
    "safe",
    "safe_plain",
    "site_plan",
    "table_of_contents",
    "use_colour",
    "write_pdf",
]
