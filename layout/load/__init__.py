"""Read and validate the inputs: site files, rack templates and the part catalog.

Every problem becomes one line ``FILE: dotted.key: problem (allowed: ...)`` so a person can act on it:
the key is a dotted path such as ``building[0].hall[1].max_rack_kw``, the problem quotes the value
that was found ("got ..."), and ``allowed`` says what would be accepted.

Pydantic checks types and ranges; its messages are reworded here for datacenter designers. The
geometric and cross-reference checks (polygons, halls inside buildings, rows inside halls, known ids,
whole servers) run afterwards, also on the parts of a file that pydantic accepted when other parts
were refused, so one run lists every problem of a file. Problems come out in file order.

The modules, each importing only those above it: ``toml`` (reading a file, the size cap), ``messages``
(wording, pydantic errors as problems, file order), ``catalog`` (the catalog and rack templates),
``parts`` (the fields of a site the cross checks read), ``geometry`` (polygons, ducts, rows, tray edits),
``checks`` (the cross checks of a site), ``site`` (``load_site`` and ``Inputs``).
"""

from __future__ import annotations

from layout.errors import InputError, Problem  # here too: `from layout.load import InputError` works
from layout.load.catalog import (
    DEFAULT_TEMPLATES_DIR,
    FABRIC_SLOT_DEVICES,
    check_catalog,
    check_template,
    load_catalog,
    load_library,
    load_templates,
    template_file,
)
from layout.load.geometry import DUCT_END_TOLERANCE_M, ENTRY_TOLERANCE_M, MAX_HALL_AREA_M2, MAX_USER_ROWS
from layout.load.messages import dotted, in_file_order, pydantic_problems, validate_model
from layout.load.parts import Fields
from layout.load.site import Inputs, check_site, load_site, site_from_data
from layout.load.toml import MAX_INPUT_BYTES, parse_toml, read_toml

__all__ = [
    "DEFAULT_TEMPLATES_DIR",
    "DUCT_END_TOLERANCE_M",
    "ENTRY_TOLERANCE_M",
    "FABRIC_SLOT_DEVICES",
    "MAX_HALL_AREA_M2",
    "MAX_INPUT_BYTES",
    "MAX_USER_ROWS",
    "Fields",
    "InputError",
    "Inputs",
    "Problem",
    "check_catalog",
    "check_site",
    "check_template",
    "template_file",
    "dotted",
    "in_file_order",
    "load_catalog",
    "load_library",
    "load_site",
    "load_templates",
    "parse_toml",
    "pydantic_problems",
    "read_toml",
    "site_from_data",
    "validate_model",
]
