"""DXF drawings for facilities teams: an adapter that reads a finished Design and writes NAME.dxf.

What a careful CAD technician would hand over:

- millimetres (``$INSUNITS`` = 4; the model is in metres, so every coordinate is x 1000), DXF R2018;
- layers declared once from :data:`LAYERS` (discipline-major-minor names, each with colour, linetype,
  lineweight and a description), named text styles and one dimension style per plot scale;
- one BLOCK per rack template (footprint, front marker) placed by INSERT with ATTRIBs (rack id,
  template, kW, GPUs, row, hall) and a position tag (K07) near the front; columns, risers, the north
  arrow, the scale bars, the legend and the title block are blocks too;
- trays as polylines drawn at their width, each segment labelled with its cables per medium and fill;
  one polyline per tray segment and media class for the cable bundles (never one entity per cable);
  design-rule violations as revision clouds on their own layer, listed in the sheets' notes;
- row labels, aisle dimensions (real DIMENSION entities), and paper space: a site overview, one sheet
  per building (campuses) and one per hall on ISO A1 with a locked viewport at a standard scale;
- what a contractor sets out from, on the hall sheets: the column grid with its bubbles and spacings,
  every row's start dimensioned from the hall's reference corner (or the grid line before it) and its
  length, one dimension per wall of a hall that is not a rectangle; over each title block the sign-off
  (drawn, checked, approved), the issue status and the revision table from the site file.

The output is deterministic: handles are given out in a fixed order, and the header dates and GUIDs are
fixed (the dates come from the site file's ``site.date``), so the same design gives the same bytes.

The modules: :mod:`.layers` (layer table, linetypes, text and dimension styles), :mod:`.sheets` (paper,
plot scales, which sheets), :mod:`.blocks` (block definitions), :mod:`.annotate` (notes and the label
boards), :mod:`.model`, :mod:`.trays` and :mod:`.overlays` (model space), :mod:`.paper` (paper space),
:mod:`.setout` (grid, setting-out and wall dimensions), :mod:`.issue` (sign-off and revision
table), :mod:`.fastpath` (racks and trays written as DXF text: the one module that knows how ezdxf writes) and
:mod:`.document` (the drawing in draw order, its bytes, the files).
"""

from layout.export.dxf.blocks import (
    TITLE_FIELDS,
    attrib_height_mm,
    attrib_longest,
    attrib_offsets_mm,
    legend_layers,
)
from layout.export.dxf.document import (
    SceneDrawing,
    build_document,
    build_scene_document,
    document_bytes,
    new_document,
    scene_from_design,
    write_dxf,
    write_scene,
)
from layout.export.dxf.fastpath import (
    RACK_HANDLES,
    TRAY_HANDLES,
    RawEntities,
    TrayEntity,
    TrayLine,
    TrayRiser,
    TrayText,
    rack_entities_text,
    tray_entities_text,
    write_with_raw_entities,
)
from layout.export.dxf.layers import (
    APPID,
    CABLING_LAYERS,
    DXF_VERSION,
    HALL_ONLY_LAYERS,
    LAYER_BY_NAME,
    LAYERS,
    LINETYPES,
    MEDIA_LAYER,
    MEDIA_TAG,
    MIN_TEXT_MM,
    MM_PER_M,
    NOTE_MM,
    NOTE_STYLE,
    OVERVIEW_ONLY_LAYERS,
    RACK_ATTRIBS,
    RACK_LAYER,
    TEXT_STYLES,
    TITLE_MM,
    TITLE_STYLE,
    Layer,
    column_block_name,
    layer_table,
    layer_table_markdown,
    rack_block_name,
)
from layout.export.dxf.model import keepout_lines, rack_marks
from layout.export.dxf.overlays import numbered_violations
from layout.export.dxf.sheets import PAPER_A1_MM, STANDARD_SCALES, Sheet, fit_scale, plan_sheets
from layout.export.dxf.trays import tray_entities
from layout.scene import Scene, scene_from_parts, scene_of, tray_edge_table

__all__ = [
    "APPID",
    "CABLING_LAYERS",
    "DXF_VERSION",
    "HALL_ONLY_LAYERS",
    "LAYERS",
    "LAYER_BY_NAME",
    "LINETYPES",
    "MEDIA_LAYER",
    "MEDIA_TAG",
    "MIN_TEXT_MM",
    "MM_PER_M",
    "NOTE_MM",
    "NOTE_STYLE",
    "OVERVIEW_ONLY_LAYERS",
    "PAPER_A1_MM",
    "RACK_ATTRIBS",
    "RACK_HANDLES",
    "RACK_LAYER",
    "STANDARD_SCALES",
    "TEXT_STYLES",
    "TITLE_FIELDS",
    "TITLE_MM",
    "TITLE_STYLE",
    "TRAY_HANDLES",
    "Layer",
    "RawEntities",
    "Scene",  # the scene's, re-exported for callers of old
    "SceneDrawing",
    "Sheet",
    "TrayEntity",
    "TrayLine",
    "TrayRiser",
    "TrayText",
    "attrib_height_mm",
    "attrib_longest",
    "attrib_offsets_mm",
    "build_document",
    "build_scene_document",
    "column_block_name",
    "document_bytes",
    "fit_scale",
    "keepout_lines",
    "layer_table",
    "layer_table_markdown",
    "legend_layers",
    "new_document",
    "numbered_violations",
    "plan_sheets",
    "rack_block_name",
    "rack_entities_text",
    "rack_marks",
    "scene_from_design",
    "scene_from_parts",
    "scene_of",
    "tray_edge_table",
    "tray_entities",
    "tray_entities_text",
    "write_dxf",
    "write_scene",
    "write_with_raw_entities",
]
