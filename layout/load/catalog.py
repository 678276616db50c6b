"""The part catalog and the rack templates of a folder: read, validated and cross-checked."""

from __future__ import annotations

import difflib
import importlib.resources
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import ValidationError

from layout.errors import InputError, Problem
from layout.load.messages import (
    id_list,
    in_file_order,
    num,
    pydantic_problems,
    strip_wrappers,
    validate_model,
)
from layout.load.toml import read_toml
from layout.model import Catalog, RackTemplate
from layout.model.catalog import COPPER_CLASSES, MEDIA_CLASSES

# The shipped rack templates and catalog, package data of `layout` (in a checkout, layout/rack_templates is
# a link to the top-level rack_templates/ people edit, so both name the same files).
DEFAULT_TEMPLATES_DIR = Path(str(importlib.resources.files("layout") / "rack_templates")).resolve()

FABRIC_SLOT_DEVICES = ("leaf", "switch", "node")  # slot devices standing for the cluster's switch / nodes


def load_catalog(templates_dir: Path = DEFAULT_TEMPLATES_DIR) -> Catalog:
    catalog, _, problems = _catalog_problems(templates_dir)
    if problems or catalog is None:
        raise InputError(problems)
    return catalog


@dataclass(frozen=True)
class _PartialCatalog:
    """What a refused catalog still tells: the entries pydantic accepted, and the ids of the refused ones."""

    catalog: Catalog
    refused_servers: frozenset[str]


def _catalog_problems(templates_dir: Path) -> tuple[Catalog | None, _PartialCatalog | None, list[Problem]]:
    """(the catalog if pydantic accepted it, else None; what can still be checked against; problems)."""
    path = templates_dir / "catalog.toml"
    name = str(path)
    try:
        data = read_toml(path)
    except InputError as e:
        return None, None, e.problems
    try:
        catalog = Catalog.model_validate(data)
    except ValidationError as e:
        partial = _partial_catalog(data)
        problems = pydantic_problems(e, Catalog, name) + check_catalog(partial.catalog, name)
        return None, partial, in_file_order(problems, data)
    return catalog, _PartialCatalog(catalog, frozenset()), in_file_order(check_catalog(catalog, name), data)


def _partial_catalog(data: dict[str, Any]) -> _PartialCatalog:
    sections: dict[str, dict[str, Any]] = {}
    refused: set[str] = set()
    for section, fld in Catalog.model_fields.items():
        spec = strip_wrappers(fld.annotation)
        raw = data.get(section)
        if get_origin(spec) is not dict:
            continue
        sections[section] = {}  # a missing or refused section: checked as empty
        if not isinstance(raw, dict):
            continue
        model = get_args(spec)[1]
        if not hasattr(model, "model_validate"):  # a table of plain values ([spares]): checked as empty
            continue
        for key, entry in raw.items():
            try:
                sections[section][key] = model.model_validate(entry)
            except ValidationError:
                if section == "server":
                    refused.add(key)
    parts: dict[str, Any] = sections
    return _PartialCatalog(Catalog.model_construct(**parts), frozenset(refused))


def check_catalog(catalog: Catalog, file: str) -> list[Problem]:
    """Consistency of media entries: the optical flag matches the class, stock lengths within reach."""
    p: list[Problem] = []
    first: dict[str, tuple[str, str]] = {}  # an id ignoring case -> the kind and id that took it first
    for kind in (
        "server",
        "switch",
        "nic",
        "media",
        "node",
        "busway",
        "tap_off",
        "ups",
        "switchboard",
        "cdu",
    ):
        for pid in getattr(catalog, kind):
            took = first.setdefault(pid.lower(), (kind, pid))
            if took != (kind, pid):
                p.append(
                    Problem(
                        file,
                        f"{kind}.{pid}",
                        f'the id "{pid}" is already {took[0]} "{took[1]}" (ids name one part of the '
                        "catalog, ignoring case: a bill of materials and a drawing tell parts apart by id)",
                        "an id no other part of the catalog uses",
                    )
                )
    optical_classes = {c for c in MEDIA_CLASSES if c not in COPPER_CLASSES}
    for mid, m in catalog.media.items():
        should = m.media_class in optical_classes
        if m.optical != should:
            p.append(
                Problem(
                    file,
                    f"media.{mid}.optical",
                    f'class "{m.media_class}" is {"an optical" if should else "a copper"} medium, '
                    f"got optical = {num(m.optical)}",
                    f"optical = {num(should)}",
                )
            )
        if m.stock_lengths_m and m.stock_lengths_m[-1] > m.reach_m:
            p.append(
                Problem(
                    file,
                    f"media.{mid}.stock_lengths_m",
                    f"longest stock length {num(m.stock_lengths_m[-1])} m is beyond the reach of {num(m.reach_m)} m",
                    f"lengths up to reach_m = {num(m.reach_m)} m",
                )
            )
    for vid, srv in catalog.server.items():
        if srv.nvlink_gpus is not None and srv.nvlink_gpus % srv.gpus:
            p.append(
                Problem(
                    file,
                    f"server.{vid}.nvlink_gpus",
                    f"an NVLink domain of {srv.nvlink_gpus} GPUs is not whole servers of {srv.gpus}",
                    f"a multiple of {srv.gpus}",
                )
            )
        if srv.rails is not None and srv.backend_ports % srv.rails:
            divs = [d for d in range(1, srv.backend_ports + 1) if srv.backend_ports % d == 0]
            p.append(
                Problem(
                    file,
                    f"server.{vid}.rails",
                    f"{srv.backend_ports} backend ports do not spread evenly over {srv.rails} rails",
                    ", ".join(map(str, divs)),
                )
            )
    for sid, sw in catalog.switch.items():
        if sw.cages is not None and sw.cages * sw.ports_per_cage != sw.ports:
            p.append(
                Problem(
                    file,
                    f"switch.{sid}.cages",
                    f"{sw.cages} cages x {sw.ports_per_cage} ports per cage is not the switch's "
                    f"{sw.ports} ports",
                    f"cages = {sw.ports // sw.ports_per_cage}"
                    if sw.ports % sw.ports_per_cage == 0
                    else f"cages x ports_per_cage = {sw.ports}",
                )
            )
    return p


def load_templates(
    templates_dir: Path = DEFAULT_TEMPLATES_DIR, catalog: Catalog | None = None
) -> dict[str, RackTemplate]:
    return _templates(templates_dir, _PartialCatalog(catalog, frozenset()) if catalog is not None else None)


def _templates(templates_dir: Path, catalog: _PartialCatalog | None) -> dict[str, RackTemplate]:
    """Every rack template of the folder (all but catalog.toml). With ``catalog``, slot devices are
    cross-checked too (known device, fits in the rack, no two devices in one RU, PDU large enough)."""
    out: dict[str, RackTemplate] = {}
    source: dict[str, Path] = {}  # by id in lower case: drawing blocks and file names ignore case
    problems: list[Problem] = []
    for path in sorted(templates_dir.glob("*.toml")):
        if path.name == "catalog.toml":
            continue
        try:
            data = read_toml(path)
            tpl: RackTemplate = validate_model(RackTemplate, data, str(path))
        except InputError as e:
            problems += e.problems
            continue
        found: list[Problem] = []
        if tpl.id.lower() in source:
            found.append(
                Problem(
                    str(path),
                    "id",
                    f'duplicate template id "{tpl.id}", {source[tpl.id.lower()].name} already uses it'
                    + ("" if tpl.id in out else " (ids are the same ignoring case)"),
                    "an id no other template uses, ignoring case",
                )
            )
        if catalog is not None:
            found += check_template(tpl, catalog.catalog, str(path), catalog.refused_servers)
        problems += in_file_order(found, data)
        source.setdefault(tpl.id.lower(), path)
        out.setdefault(tpl.id, tpl)
    if problems:
        raise InputError(problems)
    return out


def check_template(
    tpl: RackTemplate, catalog: Catalog, file: str, refused_servers: Collection[str] = ()
) -> list[Problem]:
    """Slot devices are catalog servers, "leaf" or "switch"; servers fit in the rack without sharing
    an RU; a GPU rack holds servers; the PDUs carry the servers' power. Devices in ``refused_servers``
    (catalog entries that failed validation, reported there) are not checked."""
    p: list[Problem] = []
    known = f'a catalog server ({id_list(catalog.server)}), "leaf" or "switch"'
    used: list[tuple[int, int, str]] = []  # (lowest RU, highest RU, device)
    server_kw = 0.0
    for si, s in enumerate(tpl.slot):
        if s.device in catalog.server:
            height = catalog.server[s.device].height_ru
            if not s.optional:
                server_kw += catalog.server[s.device].power_kw * len(s.ru)
        elif s.device in FABRIC_SLOT_DEVICES:
            height = 1  # the cluster's switch model decides the real height
        elif s.device in refused_servers:
            continue
        else:
            close = difflib.get_close_matches(s.device, [*catalog.server, *FABRIC_SLOT_DEVICES], n=1)
            hint = f', did you mean "{close[0]}"?' if close else ""
            p.append(Problem(file, f"slot[{si}].device", f'unknown device "{s.device}"{hint}', known))
            continue
        for ri, ru in enumerate(s.ru):
            top = ru + height - 1
            if top > tpl.height_ru:
                p.append(
                    Problem(
                        file,
                        f"slot[{si}].ru[{ri}]",
                        f"{s.device} ({height} U) at U{ru} reaches U{top}, above the rack's {tpl.height_ru} U",
                        f"U1 to U{tpl.height_ru - height + 1} for {s.device}",
                    )
                )
                continue
            clash = next(((lo, hi, d) for lo, hi, d in used if ru <= hi and top >= lo), None)
            if clash is not None:
                lo, hi, d = clash
                span = f"U{lo}" if lo == hi else f"U{lo}-U{hi}"
                p.append(
                    Problem(
                        file,
                        f"slot[{si}].ru[{ri}]",
                        f"{s.device} at U{ru}-U{top} overlaps {d} at {span}",
                        "RU positions where devices do not overlap",
                    )
                )
                continue
            used.append((ru, top, s.device))
    unknown_device = any(q.key.endswith(".device") for q in p)
    if (
        tpl.kind == "gpu"
        and not unknown_device
        and tpl.server_id(set(catalog.server) | set(refused_servers)) is None
    ):
        p.append(
            Problem(
                file,
                "slot",
                "a gpu rack template holds no server",
                f"a [[slot]] with device = one of {id_list(catalog.server)}",
            )
        )
    if server_kw > tpl.pdu_kw + 1e-9:
        p.append(
            Problem(
                file,
                "pdu_kw",
                f"the servers draw {num(round(server_kw, 3))} kW, more than pdu_kw = {num(tpl.pdu_kw)}",
                f">= {num(round(server_kw, 3))} kW, or fewer servers",
            )
        )
    return p


def load_library(templates_dir: Path = DEFAULT_TEMPLATES_DIR) -> tuple[Catalog, dict[str, RackTemplate]]:
    """The catalog and every rack template of a folder, cross-checked; all problems in one InputError."""
    catalog, templates, problems = read_library(templates_dir)
    if problems or catalog is None or templates is None:
        raise InputError(problems)
    return catalog, templates


def read_library(tdir: Path) -> tuple[Catalog | None, dict[str, RackTemplate] | None, list[Problem]]:
    """The catalog and templates of a folder, each None when refused, and every problem of both: what
    load_library and load_site share (a site is still checked against what could be read)."""
    if not tdir.is_dir():
        what = "is a file, not a folder" if tdir.exists() else "folder not found"
        return (
            None,
            None,
            [Problem(str(tdir), "(folder)", what, "a folder with catalog.toml and rack templates")],
        )
    catalog, partial, problems = _catalog_problems(tdir)
    templates: dict[str, RackTemplate] | None = None
    try:
        templates = _templates(tdir, partial)
    except InputError as e:
        problems += e.problems
    return catalog, templates, problems


def template_file(templates_dir: Path, template_id: str) -> Path:
    """The file of the rack template ``template_id`` in ``templates_dir`` (the folder if none says so):
    for messages about a template found wanting after it loaded."""
    for path in sorted(templates_dir.glob("*.toml")):
        if path.name == "catalog.toml":
            continue
        try:
            if read_toml(path).get("id") == template_id:
                return path
        except InputError:
            continue
    return templates_dir
