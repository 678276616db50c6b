"""Table exports: CSV, Parquet, XLSX and JSON, written atomically and byte-stable.

- :mod:`.csv`: ``write_csv`` (pandas' bytes through pyarrow's columnar writer), ``write_parquet``, and
  the defence against formula injection (a formula-like text cell gets a ``'`` before it).
- :mod:`.xlsx`: ``write_xlsx(sheets, path, date)``, the workbook of one or more tables.
- :mod:`.jsonout`: ``write_json`` and ``json_text`` (sorted keys, NaN/inf as ``null``).
- :mod:`.design`: the tables of one design (links, summary, BOM sheet, power) and
  ``write_design_tables`` / ``write_tables_of``, which write them; :mod:`.ports`: the port map's table.
- :mod:`.fabric`: ``write_fabric_csv`` of ``dclayout fabric --csv DIR``.

The names callers use are imported here: ``from layout.export.tables import write_csv``.
"""

from __future__ import annotations

from layout.export.tables.csv import (
    FORMULA_START,
    csv_bytes,
    decoded,
    defused,
    defused_frame,
    defused_text,
    float_text,
    formula_like_rows,
    is_formula_like,
    parquet_bytes,
    write_csv,
    write_parquet,
)
from layout.export.tables.design import (
    BOM_HEADERS,
    LINK_COLUMNS,
    POWER_COLUMNS,
    bom_sheet,
    links_arrow,
    links_summary,
    links_table,
    power_table,
    racks_with_feeds,
    summary_rows,
    summary_words,
    write_design_tables,
    write_tables_of,
)
from layout.export.tables.fabric import (
    FABRIC_DEVICE_COLUMNS,
    FABRIC_LINK_COLUMNS,
    fabric_tables,
    write_fabric_csv,
)
from layout.export.tables.jsonout import json_text, write_json
from layout.export.tables.ports import PORT_COLUMNS, port_tables, ports_arrow, ports_table
from layout.export.tables.xlsx import (
    COUNT_FORMAT,
    FILTER_ROWS,
    USD_FORMAT,
    Formula,
    number_format,
    write_xlsx,
    xlsx_bytes,
)

__all__ = [
    "COUNT_FORMAT",
    "FABRIC_DEVICE_COLUMNS",
    "FABRIC_LINK_COLUMNS",
    "FILTER_ROWS",
    "FORMULA_START",
    "PORT_COLUMNS",
    "POWER_COLUMNS",
    "USD_FORMAT",
    "Formula",
    "BOM_HEADERS",
    "bom_sheet",
    "csv_bytes",
    "decoded",
    "defused",
    "defused_frame",
    "defused_text",
    "fabric_tables",
    "float_text",
    "formula_like_rows",
    "is_formula_like",
    "json_text",
    "LINK_COLUMNS",
    "links_arrow",
    "links_summary",
    "links_table",
    "number_format",
    "parquet_bytes",
    "port_tables",
    "ports_arrow",
    "ports_table",
    "power_table",
    "racks_with_feeds",
    "summary_rows",
    "summary_words",
    "write_csv",
    "write_design_tables",
    "write_fabric_csv",
    "write_json",
    "write_parquet",
    "write_tables_of",
    "write_xlsx",
    "xlsx_bytes",
]
