"""Read and validate the inputs: site files, rack templates and the part catalog.

Every problem becomes one line ``FILE: dotted.key: problem (allowed: ...)`` so a person can act on it:
the key is a dotted path such as ``building[0].hall[1].max_rack_kw``, the problem quotes the value
that was found ("got ..."), and ``allowed`` says what would be accepted.

Pydantic checks types and ranges; its messages are reworded here for datacenter designers. The
geometric and cross-reference checks (polygons, halls inside buildings, rows inside halls, known ids,
whole servers) run afterwards, also on the parts of a file that pydantic accepted when other parts
were refused, so one run lists every problem of a file. Problems come out in file order.
"""

from __future__ import annotations

import difflib
import importlib.resources
import json
import math
import stat
import tomllib
import types
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import numpy as np
from pydantic import BaseModel, TypeAdapter, ValidationError
from shapely.geometry import LineString, Polygon
from shapely.geometry import Point as ShapelyPoint
from shapely.validation import explain_validity

from layout import sheet_names
from layout.errors import InputError, Problem  # here too: `from layout.load import InputError` works
from layout.model import Catalog, RackTemplate, SiteFile
from layout.model.catalog import COPPER_CLASSES, MEDIA_CLASSES
from layout.model.site import SU_ID_PATTERN, Building, Cluster, Duct, Hall, TrayEdit, UserRow, su_number

# The shipped rack templates and catalog, package data of `layout` (in a checkout, layout/rack_templates is
# a link to the top-level rack_templates/ people edit, so both name the same files).
DEFAULT_TEMPLATES_DIR = Path(str(importlib.resources.files("layout") / "rack_templates")).resolve()

ENTRY_TOLERANCE_M = 1.0  # a building entry must lie within this distance of the footprint outline
DUCT_END_TOLERANCE_M = 5.0  # a duct path must start/end within this distance of the buildings' entries
FABRIC_SLOT_DEVICES = ("leaf", "switch", "node")  # slot devices standing for the cluster's switch / nodes
MAX_HALL_AREA_M2 = 1_000_000.0  # 1 km²: designs in ~3 s and 200 MB; far larger halls exhaust memory
MAX_USER_ROWS = 5_000  # [[row]] entries of one site
MAX_INPUT_BYTES = 16 * 2**20  # a site, template or catalog file larger than this is refused unread


@dataclass(frozen=True)
class Inputs:
    """A validated site with the catalog and rack templates it refers to."""

    site: SiteFile
    catalog: Catalog
    templates: dict[str, RackTemplate]
    path: Path
    templates_dir: Path = field(default=DEFAULT_TEMPLATES_DIR)

    @property
    def stem(self) -> str:
        return self.path.stem


# ------------------------------------------------------------------------------------------- TOML
def _read_text(path: Path) -> str:
    """The text of an input file: a regular file (not a folder, FIFO or device such as /dev/zero) of at
    most MAX_INPUT_BYTES, read as UTF-8; anything else is one clean problem, never a hang."""

    def bad(problem: str, allowed: str = "a path to a .toml file") -> InputError:
        return InputError([Problem(str(path), "(file)", problem, allowed)])

    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise bad("is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise bad("is not a regular file (a device, FIFO or socket)", "a path to a .toml text file")
        with path.open("rb") as f:
            raw = f.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise bad("file not found", "a path to an existing .toml file") from None
    except NotADirectoryError:
        raise bad("a folder on the path is a file", "a path to an existing .toml file") from None
    except PermissionError:
        raise bad("permission denied", "a file you can read") from None
    except OSError as e:
        raise bad(f"cannot be read ({e.strerror or type(e).__name__})") from None
    if len(raw) > MAX_INPUT_BYTES:
        raise bad(
            f"is larger than {MAX_INPUT_BYTES // 2**20} MiB",
            f"an input file of at most {MAX_INPUT_BYTES // 2**20} MiB",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise bad(f"not UTF-8 text ({e.reason})", "a UTF-8 text file") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")  # universal newlines, as read_text() had


def read_toml(path: Path) -> dict[str, Any]:
    return parse_toml(_read_text(path), str(path))


def parse_toml(text: str, name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise InputError(
            [
                Problem(
                    name, "(syntax)", "TOML nested too deeply to read", "tables and lists nested a few levels"
                )
            ]
        ) from None
    except tomllib.TOMLDecodeError as e:
        msg, _, pos = str(e).partition(" (at ")
        pos = pos.rstrip(")")
        if pos == "end of document":
            lines = text.split("\n")
            pos = f"line {len(lines)}, column {len(lines[-1]) + 1} (end of file)"
        where = pos or "(syntax)"  # "line 3, column 7"
        msg = msg[:1].lower() + msg[1:]
        raise InputError(
            [Problem(name, where, f"TOML syntax error: {msg}", _SYNTAX_HINTS.get(msg, ""))]
        ) from None


_SYNTAX_HINTS = {
    "invalid value": 'a quoted "text", a number, true/false, a [list] or an { inline = "table" }',
    "expected '=' after a key in a key/value pair": "key = value, one per line",
    "cannot overwrite a value": "each key set once per table",
}


def dotted(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


# ----------------------------------------------------------------------------- wording of the values
def _num(v: float) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if math.isfinite(v) and v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def _coord(v: float) -> str:
    return _num(round(float(v), 3))


def _xy(pt: Sequence[float]) -> str:
    return f"({_coord(pt[0])}, {_coord(pt[1])})"


def _value(v: Any, limit: int = 60) -> str:
    """A value as the person wrote it in TOML."""
    if isinstance(v, str):
        out = json.dumps(v, ensure_ascii=False)
    elif isinstance(v, bool | int | float):
        out = _num(v)
    elif isinstance(v, list | tuple):
        out = "[" + ", ".join(_value(x, limit) for x in v) + "]"
    elif isinstance(v, dict):
        out = "a table {" + ", ".join(str(k) for k in v) + "}"
    else:
        out = str(v)
    return (
        out
        if len(out) <= limit
        else out[: limit - 4] + " ...]"
        if out.startswith("[")
        else out[: limit - 3] + "..."
    )


def _ids(ids: Iterable[str]) -> str:
    return ", ".join(sorted(ids)) or "(none defined)"


_UNITS = (
    ("_kg_m2", "kg/m²"),
    ("_usd_per_kwh", "$/kWh"),
    ("_usd_per_m", "$/m"),
    ("_kg_per_m", "kg/m"),
    ("_kw", "kW"),
    ("_mw", "MW"),
    ("_mm", "mm"),
    ("_m", "m"),
    ("_kg", "kg"),
    ("_years", "years"),
    ("_s", "s"),
    ("_gb", "GB"),
    ("_usd", "$"),
    ("_gbps", "Gb/s"),
    ("_ru", "U"),
)


def _unit(name: str) -> str:
    for suffix, unit in _UNITS:
        if name.endswith(suffix):
            return unit
    return ""


# --------------------------------------------------------------------- pydantic errors -> problems
_BOUNDS = (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<="))
_BOUND_ERRORS = {"greater_than": "gt", "greater_than_equal": "ge", "less_than": "lt", "less_than_equal": "le"}
_TYPE_TEXT = {
    "float_type": "a number",
    "float_parsing": "a number",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "text in quotes",
    "list_type": "a list [...]",
    "tuple_type": "a pair [x, y]",
    "dict_type": "a table",
    "model_type": "a table",
    "model_attributes_type": "a table",
    "finite_number": "a finite number",
}
_PAIR = "two numbers, e.g. [12.5, 30]"
_PATTERNS = {
    r"^[A-Za-z0-9_-]{1,16}$": ('an id of 1 to 16 letters, digits, "_" or "-"', 'e.g. "B1" or "H2"'),
    r"^[A-Za-z0-9_-]+/[A-Za-z0-9_-]+$": ("BUILDING/HALL", 'e.g. "B1/H1"'),
    r"^\d{4}-\d{2}-\d{2}$": ("a date written YYYY-MM-DD", "e.g. 2026-11-29"),
    SU_ID_PATTERN: ("an SU id pPOD-uSU", 'e.g. "p0-u03", pod 0\'s SU 3'),
}


def _strip(tp: Any) -> Any:
    """Drop Annotated[...] and Optional[...] wrappers."""
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp = get_args(tp)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in get_args(tp) if a is not type(None)]
            if len(args) != 1:
                return tp
            tp = args[0]
        else:
            return tp


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _field_by_key(model: type[BaseModel], key: str) -> tuple[str, Any] | None:
    for name, f in model.model_fields.items():
        if (f.alias or name) == key:
            return name, f
    return None


def _walk(model: type[BaseModel], loc: Sequence[Any]) -> tuple[Any, Any, bool]:
    """Along ``loc`` from ``model``: (annotation reached or None, last field passed, loc ends on that field)."""
    tp: Any = model
    fld: Any = None
    on_field = False
    for part in loc:
        tp = _strip(tp)
        on_field = False
        if _is_model(tp):
            found = _field_by_key(tp, part) if isinstance(part, str) else None
            if found is None:
                return None, fld, False
            fld = found[1]
            tp = fld.annotation
            on_field = True
            continue
        origin, args = get_origin(tp), get_args(tp)
        if origin is list and args:
            tp = args[0]
        elif origin is tuple and args:
            tp = args[part] if isinstance(part, int) and part < len(args) else args[0]
        elif origin is dict and len(args) == 2:
            tp = args[1]
        else:
            return None, fld, False
    return tp, fld, on_field


def _field_names(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def _bounds_text(err: Any, model: type[BaseModel], loc: Sequence[Any]) -> str:
    tp, fld, on_field = _walk(model, loc)
    bounds: dict[str, Any] = {}
    metas: list[Any] = list(fld.metadata) if (fld is not None and on_field) else []
    if not on_field and get_origin(tp) is Annotated:
        for extra in get_args(tp)[1:]:
            metas += list(getattr(extra, "metadata", [extra]))
    for m in metas:
        for attr, _ in _BOUNDS:
            if getattr(m, attr, None) is not None:
                bounds[attr] = getattr(m, attr)
    ctx = err.get("ctx") or {}
    bounds.update({b: ctx[b] for b, _ in _BOUNDS if b in ctx})
    parts = [f"{sym} {_num(bounds[b])}" for b, sym in _BOUNDS if b in bounds]
    name = next((p for p in reversed(loc) if isinstance(p, str)), "")
    unit = _unit(name)
    return " and ".join(parts) + (f" {unit}" if unit and parts else "")


def _example(tp: Any) -> str:
    tp = _strip(tp)
    origin, args = get_origin(tp), get_args(tp)
    if tp is str:
        return '"..."'
    if tp is int:
        return "<whole number>"
    if tp is float:
        return "<number>"
    if tp is bool:
        return "true or false"
    if origin is Literal:
        return " or ".join(_value(a) for a in args)
    if origin is tuple:
        return "[x, y]"
    if origin is list and args and get_origin(_strip(args[0])) is tuple:
        return "[[x, y], ...]"
    if origin is list:
        return "[...]"
    return "{ ... }"


def _missing_allowed(model: type[BaseModel], loc: Sequence[Any], choices: Sequence[str] | None) -> str:
    tp, _, _ = _walk(model, loc)
    name = str(loc[-1])
    header = ".".join(str(p) for p in loc if isinstance(p, str))
    inner = _strip(tp)
    if _is_model(inner):
        return f"add a [{header}] table"
    if get_origin(inner) is list and _is_model(_strip(get_args(inner)[0])):
        return f"add one or more [[{header}]] tables"
    if choices:
        return f'add {name} = "...", one of: {", ".join(choices)}'
    return f"add {name} = {_example(tp)}"


def _error_problem(
    err: Any, model: type[BaseModel], choices: Mapping[str, Sequence[str]]
) -> tuple[tuple[Any, ...], str, str]:
    """(loc, problem, allowed) of one pydantic error."""
    kind: str = err["type"]
    ctx = err.get("ctx") or {}
    loc = tuple(err["loc"])
    val = err.get("input")
    got = f", got {_value(val)}"
    if kind == "int_type" and isinstance(val, float):
        got = f", got {val!r}"  # 8.0, not 8: the decimal point is what makes it no whole number here
    if kind == "missing" and loc and isinstance(loc[-1], int):  # a tuple such as [x, y] with too few items
        return loc[:-1], f"must be a pair [x, y]{got}", _PAIR
    if kind == "extra_forbidden":
        owner = _strip(_walk(model, loc[:-1])[0])
        names = _field_names(owner) if _is_model(owner) else []
        close = difflib.get_close_matches(str(loc[-1]), names, n=1, cutoff=0.6)
        hint = f', did you mean "{close[0]}"?' if close else ""
        return loc, f"unknown key{hint}", ", ".join(names)
    pattern_key = dotted("*" if isinstance(p, int) else p for p in loc).replace(".*", "[*]")
    if kind == "missing":
        return loc, "required key is missing", _missing_allowed(model, loc, choices.get(pattern_key))
    if "allowed" in ctx:  # our own PydanticCustomError: message and allowed are already worded
        return loc, err["msg"], str(ctx["allowed"])
    if kind in _BOUND_ERRORS:
        b = _BOUND_ERRORS[kind]
        sym = dict(_BOUNDS)[b]
        return loc, f"must be {sym} {_num(ctx[b])}{got}", _bounds_text(err, model, loc)
    if kind in _TYPE_TEXT:
        tp = _walk(model, loc)[0]
        if kind == "string_type" and pattern_key in choices:
            return loc, f"must be {_TYPE_TEXT[kind]}{got}", ", ".join(choices[pattern_key])
        header = ".".join(str(p) for p in loc if isinstance(p, str))
        inner = _strip(tp)
        if kind == "list_type" and get_origin(inner) is list and _is_model(_strip(get_args(inner)[0])):
            return (
                loc,
                f"must be a list of tables{got}",
                f"a [[{header}]] header, with double brackets, before each entry",
            )
        if kind in ("dict_type", "model_type", "model_attributes_type") and _is_model(inner):
            return loc, f"must be a table{got}", f"a single [{header}] header, with single brackets"
        rng = _bounds_text(err, model, loc) if kind not in ("string_type", "list_type", "tuple_type") else ""
        return loc, f"must be {_TYPE_TEXT[kind]}{got}", rng or _example(tp)
    if kind == "literal_error":
        tp = _strip(_walk(model, loc)[0])
        options = get_args(tp) if get_origin(tp) is Literal else ()
        allowed = ", ".join(_value(o) for o in options) or str(ctx.get("expected", "")).replace("'", '"')
        return loc, f"unknown value {_value(val)}", allowed
    if kind == "string_pattern_mismatch":
        what, example = _PATTERNS.get(str(ctx.get("pattern")), (f"text matching {ctx.get('pattern')}", ""))
        return loc, f"must be {what}{got}", example
    if kind in ("too_short", "too_long"):
        if ctx.get("field_type") == "Tuple":
            return loc, f"must be a pair [x, y]{got}", _PAIR
        n, actual = ctx.get("min_length", ctx.get("max_length")), ctx.get("actual_length")
        entries = "entry" if n == 1 else "entries"
        if kind == "too_short":
            inner = _strip(_walk(model, loc)[0])
            item = _strip(get_args(inner)[0]) if get_origin(inner) is list and get_args(inner) else None
            if _is_model(item):
                header = ".".join(str(p) for p in loc if isinstance(p, str))
                allowed = f"{n} or more [[{header}]] tables"
            elif get_origin(item) is tuple:
                allowed = f"{n} or more points [[x, y], ...]"
            elif get_origin(inner) is dict:
                header = ".".join(str(p) for p in loc if isinstance(p, str))
                allowed = f"{n} or more [{header}.ID] tables"
            else:
                allowed = f"{n} or more {entries}"
            return loc, f"needs at least {n} {entries}, got {actual}", allowed
        return loc, f"allows at most {n} {entries}, got {actual}", f"up to {n}"
    if kind == "string_too_short":
        return loc, "must not be empty", "some text"
    if kind == "string_too_long":
        return loc, f"must be at most {ctx.get('max_length')} characters, got {len(str(val))}", ""
    msg = str(err["msg"]).removeprefix("Value error, ")
    return loc, f"{msg}{got}" if isinstance(val, str | int | float) else msg, ""


def pydantic_problems(
    error: ValidationError,
    model: type[BaseModel],
    name: str,
    choices: Mapping[str, Sequence[str]] | None = None,
) -> list[Problem]:
    """One Problem per pydantic error; runs of identical errors on items of one list are merged.

    ``choices`` maps a key pattern such as ``cluster.server`` or ``row[*].template`` to the known ids,
    listed as what is allowed when that key is missing or not text.
    """
    out: list[Problem] = []
    run_key: tuple[Any, ...] | None = None
    run = 0
    for err in error.errors():
        loc, problem, allowed = _error_problem(err, model, choices or {})
        key = (loc[:-1], err["type"]) if loc and isinstance(loc[-1], int) else None
        if key is not None and key == run_key:
            run += 1
            last = out[-1]
            base = last.problem.split(" (and ")[0]
            out[-1] = Problem(last.file, last.key, f"{base} (and {run} more like it)", last.allowed)
            continue
        run_key, run = key, 0
        out.append(Problem(name, dotted(loc), problem, allowed))
    return out


def validate_model(model: type[BaseModel], data: dict[str, Any], name: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise InputError(in_file_order(pydantic_problems(e, model, name), data)) from None


# ------------------------------------------------------------------------------------ file order
def _positions(data: Any) -> dict[str, int]:
    """Every dotted key of a parsed TOML document numbered in file order (tomllib keeps that order)."""
    pos: dict[str, int] = {}
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        key, v = stack.pop()
        pos.setdefault(key, len(pos))
        if isinstance(v, dict):
            stack += [(f"{key}.{k}" if key else str(k), x) for k, x in reversed(list(v.items()))]
        elif isinstance(v, list):
            stack += [(f"{key}[{i}]", x) for i, x in reversed(list(enumerate(v)))]
    return pos


def _parent_key(key: str) -> str:
    if key.endswith("]"):
        return key[: key.rfind("[")]
    dot = key.rfind(".")
    return key[:dot] if dot > 0 else ""


def in_file_order(problems: Sequence[Problem], data: Any) -> list[Problem]:
    """Sort the problems of one file by where their key sits in the file (stable for ties)."""
    pos = _positions(data)

    def where(p: Problem) -> int:
        key = p.key
        while key and key not in pos:
            key = _parent_key(key)
        return pos.get(key, -1)

    return [p for _, p in sorted(enumerate(problems), key=lambda ip: (where(ip[1]), ip[0]))]


# ------------------------------------------------------------------------------------------ geometry
def _polygon(
    points: Sequence[Sequence[float]] | None, file: str, key: str, problems: list[Problem]
) -> Polygon | None:
    if points is None:
        return None
    pts = [tuple(pt) for pt in points]
    if len(pts) >= 2 and pts[0] == pts[-1]:
        pts = pts[:-1]
    if len(pts) < 3:
        problems.append(
            Problem(
                file,
                key,
                f"open polygon: only {len(pts)} corner{'' if len(pts) == 1 else 's'}",
                "at least 3 corners [[x, y], ...] enclosing an area",
            )
        )
        return None
    poly = Polygon(pts)
    if poly.convex_hull.area <= 1e-9:
        problems.append(
            Problem(
                file,
                key,
                "the corners lie on one line, the polygon has no area",
                "corners that enclose an area",
            )
        )
        return None
    if not poly.is_valid:
        why = explain_validity(poly)
        reason, _, rest = why.partition("[")
        at = rest.rstrip("]").split()
        where = f" at ({', '.join(_coord(float(v)) for v in at)})" if len(at) == 2 else ""
        text = {
            "Self-intersection": f"edges cross each other{where}",
            "Ring Self-intersection": f"the outline touches itself{where}",
        }.get(reason, f"invalid polygon: {reason.lower()}{where}")
        problems.append(
            Problem(file, key, text, "corners listed in order around the outline, edges that do not cross")
        )
        return None
    return poly


def _nearest_on(line: Any, pt: Sequence[float]) -> tuple[float, float]:
    """The point of ``line`` (e.g. a footprint outline) closest to ``pt``."""
    near = line.interpolate(line.project(ShapelyPoint(pt)))
    return (near.x, near.y)


def _bounds(poly: Polygon) -> str:
    x0, y0, x1, y1 = poly.bounds
    return f"x {_coord(x0)}..{_coord(x1)}, y {_coord(y0)}..{_coord(y1)}"


def _area(a: float) -> str:
    return f"{a:,.1f}".rstrip("0").rstrip(".")


# ------------------------------------------------------------------------------ catalog + templates
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
        spec = _strip(fld.annotation)
        raw = data.get(section)
        if get_origin(spec) is not dict:
            continue
        sections[section] = {}  # a missing or refused section: checked as empty
        if not isinstance(raw, dict):
            continue
        model = get_args(spec)[1]
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
    optical_classes = {c for c in MEDIA_CLASSES if c not in COPPER_CLASSES}
    for mid, m in catalog.media.items():
        should = m.media_class in optical_classes
        if m.optical != should:
            p.append(
                Problem(
                    file,
                    f"media.{mid}.optical",
                    f'class "{m.media_class}" is {"an optical" if should else "a copper"} medium, '
                    f"got optical = {_num(m.optical)}",
                    f"optical = {_num(should)}",
                )
            )
        if m.stock_lengths_m and m.stock_lengths_m[-1] > m.reach_m:
            p.append(
                Problem(
                    file,
                    f"media.{mid}.stock_lengths_m",
                    f"longest stock length {_num(m.stock_lengths_m[-1])} m is beyond the reach of {_num(m.reach_m)} m",
                    f"lengths up to reach_m = {_num(m.reach_m)} m",
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
    source: dict[str, Path] = {}
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
        if tpl.id in source:
            found.append(
                Problem(
                    str(path),
                    "id",
                    f'duplicate template id "{tpl.id}", {source[tpl.id].name} already uses it',
                    "an id no other template uses",
                )
            )
        if catalog is not None:
            found += check_template(tpl, catalog.catalog, str(path), catalog.refused_servers)
        problems += in_file_order(found, data)
        source.setdefault(tpl.id, path)
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
    known = f'a catalog server ({_ids(catalog.server)}), "leaf" or "switch"'
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
                f"a [[slot]] with device = one of {_ids(catalog.server)}",
            )
        )
    if server_kw > tpl.pdu_kw + 1e-9:
        p.append(
            Problem(
                file,
                "pdu_kw",
                f"the servers draw {_num(round(server_kw, 3))} kW, more than pdu_kw = {_num(tpl.pdu_kw)}",
                f">= {_num(round(server_kw, 3))} kW, or fewer servers",
            )
        )
    return p


def load_library(templates_dir: Path = DEFAULT_TEMPLATES_DIR) -> tuple[Catalog, dict[str, RackTemplate]]:
    """The catalog and every rack template of a folder, cross-checked; all problems in one InputError."""
    catalog, templates, problems = _load_library(templates_dir)
    if problems or catalog is None or templates is None:
        raise InputError(problems)
    return catalog, templates


def _load_library(tdir: Path) -> tuple[Catalog | None, dict[str, RackTemplate] | None, list[Problem]]:
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


# --------------------------------------------------------------------------------------------- site
def load_site(path: str | Path, templates_dir: Path | None = None) -> Inputs:
    """Read, validate and cross-check a site file. Raises InputError listing every problem found:
    those of the catalog and rack templates first, then the site's in file order."""
    path = Path(path)
    tdir = templates_dir or _templates_dir_for(path)
    catalog, templates, problems = _load_library(tdir)
    try:
        data = read_toml(path)
    except InputError as e:
        raise InputError(problems + e.problems) from None
    site, site_problems = _site_problems(data, path, catalog, templates)
    problems += site_problems
    if problems or site is None or catalog is None or templates is None:
        raise InputError(problems)
    return Inputs(site=site, catalog=catalog, templates=templates, path=path, templates_dir=tdir)


def site_from_data(
    data: dict[str, Any], path: Path, catalog: Catalog, templates: dict[str, RackTemplate], tdir: Path
) -> Inputs:
    site, problems = _site_problems(data, path, catalog, templates)
    if problems or site is None:
        raise InputError(problems)
    return Inputs(site=site, catalog=catalog, templates=templates, path=path, templates_dir=tdir)


def _templates_dir_for(site_path: Path) -> Path:
    """The rack templates a site file uses without ``--templates``: a ``rack_templates/`` folder with a
    catalog.toml in the site's own folder, else in its parent (a project of ``sites/`` beside
    ``rack_templates/``), else the ones shipped with the package."""
    folder = site_path.resolve().parent
    for beside in (folder / "rack_templates", folder.parent / "rack_templates"):
        if (beside / "catalog.toml").is_file():
            return beside
    return DEFAULT_TEMPLATES_DIR


def _site_choices(
    catalog: Catalog | None, templates: Mapping[str, RackTemplate] | None
) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if catalog is not None:
        out |= {
            "cluster.server": sorted(catalog.server),
            "cluster.switch": sorted(catalog.switch),
            "cluster.nic": sorted(catalog.nic),
        }
    if templates is not None:
        gpu = sorted(t for t, tpl in templates.items() if tpl.kind == "gpu")
        out |= {"cluster.rack": gpu, "cluster.rack_low_density": gpu, "row[*].template": sorted(templates)}
    return out


def _site_problems(
    data: dict[str, Any], path: Path, catalog: Catalog | None, templates: Mapping[str, RackTemplate] | None
) -> tuple[SiteFile | None, list[Problem]]:
    """The validated site (or None) and every problem: pydantic's and the cross checks, in file order."""
    file = str(path)
    try:
        site = SiteFile.model_validate(data)
    except ValidationError as e:
        problems = pydantic_problems(e, SiteFile, file, _site_choices(catalog, templates))
        bad: set[tuple[Any, ...]] = set()
        for err in e.errors():
            loc = tuple(err["loc"])
            bad.update(loc[:i] for i in range(1, len(loc) + 1))
        problems += _cross_check(_parts_from_raw(data, bad), catalog, templates, file)
        return None, in_file_order(problems, data)
    return site, in_file_order(_cross_check(_parts_of(site), catalog, templates, file), data)


def check_site(
    site: SiteFile, catalog: Catalog, templates: Mapping[str, RackTemplate], file: str
) -> list[Problem]:
    """Geometry and cross-reference checks of a validated site (in check order, not file order)."""
    return _cross_check(_parts_of(site), catalog, templates, file)


# The cross checks read plain dicts of validated field values, so that they also run on the parts of a
# file that pydantic accepted while other parts were refused (no false "unknown hall" then).
Fields = dict[str, Any]


@dataclass
class _Building:
    index: int
    f: Fields
    halls: list[tuple[int, Fields]]


@dataclass
class _Parts:
    buildings: list[_Building]
    ducts: list[tuple[int, Fields]]
    cluster: Fields | None
    rows: list[tuple[int, Fields]]
    tray_edits: dict[str, list[tuple[int, Fields]]]
    refused: set[str] = field(default_factory=set)  # "B1", "B1/H1": named in the file, refused by pydantic


def _fields(m: BaseModel) -> Fields:
    return {name: getattr(m, name) for name in type(m).model_fields}


def _parts_of(site: SiteFile) -> _Parts:
    return _Parts(
        buildings=[
            _Building(bi, _fields(b), [(hi, _fields(h)) for hi, h in enumerate(b.hall)])
            for bi, b in enumerate(site.building)
        ],
        ducts=[(i, _fields(d)) for i, d in enumerate(site.duct)],
        cluster=_fields(site.cluster),
        rows=[(i, _fields(r)) for i, r in enumerate(site.row)],
        tray_edits={
            "tray_block": [(i, _fields(t)) for i, t in enumerate(site.tray_block)],
            "tray_add": [(i, _fields(t)) for i, t in enumerate(site.tray_add)],
        },
    )


@cache
def _adapter(model: type[BaseModel], name: str) -> TypeAdapter[Any]:
    fld = model.model_fields[name]
    tp: Any = Annotated[(fld.annotation, *fld.metadata)] if fld.metadata else fld.annotation
    return TypeAdapter(tp)


def _lenient(
    model: type[BaseModel],
    raw: Any,
    loc: tuple[Any, ...],
    bad: set[tuple[Any, ...]],
    skip: tuple[str, ...] = (),
) -> Fields:
    """The fields of ``raw`` that pydantic accepted (validated one by one), plus defaults of absent ones."""
    out: Fields = {}
    if not isinstance(raw, dict):
        return out
    for name, fld in model.model_fields.items():
        key = fld.alias or name
        if name in skip:
            continue
        if key in raw:
            if loc + (key,) in bad:
                continue
            try:
                out[name] = _adapter(model, name).validate_python(raw[key])
            except ValidationError:
                continue
        elif not fld.is_required():
            out[name] = fld.get_default(call_default_factory=True)
    return out


def _raw_items(raw: Any, key: str, loc: tuple[Any, ...]) -> list[tuple[int, Any, tuple[Any, ...]]]:
    v = raw.get(key) if isinstance(raw, dict) else None
    return [(i, x, (*loc, key, i)) for i, x in enumerate(v)] if isinstance(v, list) else []


def _parts_from_raw(data: dict[str, Any], bad: set[tuple[Any, ...]]) -> _Parts:
    def each(model: type[BaseModel], key: str) -> list[tuple[int, Fields]]:
        return [(i, _lenient(model, x, loc, bad)) for i, x, loc in _raw_items(data, key, ())]

    buildings = [
        _Building(
            bi,
            _lenient(Building, b, bloc, bad, skip=("hall",)),
            [(hi, _lenient(Hall, h, hloc, bad)) for hi, h, hloc in _raw_items(b, "hall", bloc)],
        )
        for bi, b, bloc in _raw_items(data, "building", ())
    ]
    refused: set[str] = set()
    raw_buildings = data.get("building")
    for b in raw_buildings if isinstance(raw_buildings, list) else [raw_buildings]:
        if not isinstance(b, dict) or not isinstance(b.get("id"), str):
            continue
        bid = b["id"]
        halls = b.get("hall")
        for h in halls if isinstance(halls, list) else [halls]:
            hid = h.get("id") if isinstance(h, dict) else None
            if isinstance(hid, str):
                refused.add(f"{bid}/{hid}")
        refused.add(bid)
    refused -= {b.f["id"] for b in buildings if "id" in b.f}
    refused -= {f"{b.f['id']}/{h['id']}" for b in buildings if "id" in b.f for _, h in b.halls if "id" in h}
    cluster_raw = data.get("cluster")
    return _Parts(
        buildings=buildings,
        ducts=each(Duct, "duct"),
        cluster=_lenient(Cluster, cluster_raw, ("cluster",), bad) if isinstance(cluster_raw, dict) else None,
        rows=each(UserRow, "row"),
        tray_edits={"tray_block": each(TrayEdit, "tray_block"), "tray_add": each(TrayEdit, "tray_add")},
        refused=refused,
    )


def _check_sheet_names(parts: _Parts, file: str) -> list[Problem]:
    """Each building and hall whose name in the drawings (:mod:`layout.sheet_names`) an earlier one has,
    ignoring case: its plan would overwrite the other's file, its DXF layout could not be made."""
    keys: list[str] = []
    named: list[tuple[str, str]] = []
    ids: set[str] = set()
    for b in parts.buildings:
        bid = b.f.get("id")
        if bid is None or bid in ids:  # a duplicate id is a problem of its own
            continue
        ids.add(bid)
        halls = {str(h["id"]): f"building[{b.index}].hall[{hi}].id" for hi, h in b.halls if "id" in h}
        for hid, what, name in sheet_names.names_of(str(bid), halls):
            keys.append(f"building[{b.index}].id" if hid is None else halls[hid])
            named.append((what, name))
    p: list[Problem] = []
    seen: set[str] = set()
    for i, first in sheet_names.clashes(named):
        if keys[i] in seen:
            continue
        seen.add(keys[i])
        what, name = named[i]
        had = "the DXF model space's name" if first is None else f"as {first} is"
        p.append(
            Problem(
                file,
                keys[i],
                f'{what} would be named "{name}", {had} (drawing and file names ignore case)',
                "ids that give each building and hall names of their own, as BUILDING-HALL",
            )
        )
    return p


@dataclass
class _HallGeo:
    key: str  # dotted key of the hall, e.g. building[0].hall[1]
    polygon: Polygon | None


def _cross_check(
    parts: _Parts, catalog: Catalog | None, templates: Mapping[str, RackTemplate] | None, file: str
) -> list[Problem]:
    p: list[Problem] = []
    buildings: dict[str, tuple[int, Polygon | None, tuple[float, float] | None]] = {}
    halls: dict[str, _HallGeo] = {}  # "B1/H1" -> geometry
    footprints: list[tuple[str, Polygon]] = []
    for b in parts.buildings:
        bkey = f"building[{b.index}]"
        bid = b.f.get("id")
        fp = _polygon(b.f.get("footprint"), file, f"{bkey}.footprint", p)
        entry = b.f.get("entry")
        if bid is not None:
            if bid in buildings:
                p.append(
                    Problem(
                        file,
                        f"{bkey}.id",
                        f'duplicate building id "{bid}", building[{buildings[bid][0]}] already uses it',
                        "an id no other building uses",
                    )
                )
            else:
                buildings[bid] = (b.index, fp, entry)
        if fp is not None and entry is not None:
            gap = fp.exterior.distance(ShapelyPoint(entry))
            if gap > ENTRY_TOLERANCE_M:
                p.append(
                    Problem(
                        file,
                        f"{bkey}.entry",
                        f"entry at {_xy(entry)} is {_coord(gap)} m from building {bid}'s outer wall",
                        f"a point within {_num(ENTRY_TOLERANCE_M)} m of the footprint outline, "
                        f"e.g. {_xy(_nearest_on(fp.exterior, entry))}",
                    )
                )
        mdf_at = b.f.get("mdf_at")
        if fp is not None and mdf_at is not None and not fp.buffer(1e-6).contains(ShapelyPoint(mdf_at)):
            p.append(
                Problem(
                    file,
                    f"{bkey}.mdf_at",
                    f"mdf_at {_xy(mdf_at)} is outside building {bid}'s footprint",
                    f"a point inside the footprint, {_bounds(fp)}",
                )
            )
        if fp is not None:
            for other, op in footprints:
                shared = fp.intersection(op).area
                if shared > 1e-6:
                    what = (
                        f"is the same as building {other}'s"
                        if fp.equals(op)
                        else f"overlaps building {other}'s by {_area(shared)} m²"
                    )
                    p.append(
                        Problem(
                            file,
                            f"{bkey}.footprint",
                            f"building {bid}'s footprint {what}",
                            "buildings that do not overlap",
                        )
                    )
            footprints.append((str(bid), fp))
        placed: list[tuple[str, Polygon]] = []
        seen: dict[str, int] = {}
        for hi, h in b.halls:
            hkey = f"{bkey}.hall[{hi}]"
            hid = h.get("id")
            name = f"{bid}/{hid}"
            if hid is not None:
                if hid in seen:
                    p.append(
                        Problem(
                            file,
                            f"{hkey}.id",
                            f'duplicate hall id "{hid}", {bkey}.hall[{seen[hid]}] already uses it',
                            f"an id no other hall of building {bid} uses",
                        )
                    )
                else:
                    seen[hid] = hi
            if catalog is not None:
                p += _check_hall_power(h.get("power"), catalog, file, hkey)
            hp = _polygon(h.get("polygon"), file, f"{hkey}.polygon", p)
            if hid is not None and bid is not None and name not in halls:
                halls[name] = _HallGeo(hkey, hp)
            if hp is None:
                continue
            if hp.area > MAX_HALL_AREA_M2:
                p.append(
                    Problem(
                        file,
                        f"{hkey}.polygon",
                        f"hall {name} of {_area(hp.area)} m² is larger than the tool designs",
                        f"a hall of at most {_area(MAX_HALL_AREA_M2)} m² (1 km²); split it into several halls",
                    )
                )
                continue
            if fp is not None and not fp.buffer(1e-6).contains(hp):
                outside = hp.difference(fp).area
                where = (
                    "lies entirely outside"
                    if outside >= hp.area - 1e-6
                    else f"reaches {_area(outside)} m² outside"
                )
                p.append(
                    Problem(
                        file,
                        f"{hkey}.polygon",
                        f"hall {name} {where} building {bid}'s footprint",
                        f"a polygon within the footprint, {_bounds(fp)}",
                    )
                )
            for other, op in placed:
                shared = hp.intersection(op).area
                if shared > 1e-6:
                    p.append(
                        Problem(
                            file,
                            f"{hkey}.polygon",
                            f"hall {name} overlaps hall {bid}/{other} by {_area(shared)} m²",
                            "halls of one building that do not overlap",
                        )
                    )
            placed.append((str(hid), hp))
            spine_at = h.get("spine_at")
            if spine_at is not None and not hp.buffer(1e-6).contains(ShapelyPoint(spine_at)):
                p.append(
                    Problem(
                        file,
                        f"{hkey}.spine_at",
                        f"spine_at {_xy(spine_at)} is outside hall {name}",
                        f"a point inside the hall, {_bounds(hp)}",
                    )
                )
            for ci, c in enumerate(h.get("columns") or []):
                if not hp.buffer(1e-6).contains(ShapelyPoint(c.at)):
                    p.append(
                        Problem(
                            file,
                            f"{hkey}.columns[{ci}].at",
                            f"column at {_xy(c.at)} is outside hall {name}",
                            f"a point inside the hall, {_bounds(hp)}",
                        )
                    )
            for ki, k in enumerate(h.get("keepouts") or []):
                kkey = f"{hkey}.keepouts[{ki}].polygon"
                kp = _polygon(k.polygon, file, kkey, p)
                if kp is not None and not hp.buffer(1e-6).contains(kp):
                    where = "lies outside" if not kp.intersects(hp) else "reaches outside"
                    p.append(
                        Problem(
                            file,
                            kkey,
                            f"keep-out {where} hall {name}",
                            f"a polygon within the hall, {_bounds(hp)}",
                        )
                    )
    p += _check_ducts(parts, buildings, file)
    p += _check_su_orders(parts, file)
    p += _check_sheet_names(parts, file)
    if catalog is not None:
        p += _check_cluster(parts.cluster, catalog, templates, file)
    p += _check_rows(parts, halls, templates, file)
    for edit_name, edits in parts.tray_edits.items():
        for ti, t in edits:
            if "hall" not in t:
                continue
            geo = halls.get(t["hall"])
            if geo is None:
                if t["hall"] not in parts.refused:
                    p.append(
                        Problem(file, f"{edit_name}[{ti}].hall", f'unknown hall "{t["hall"]}"', _ids(halls))
                    )
                continue
            line = t.get("line")
            if geo.polygon is None or line is None:
                continue
            if not geo.polygon.buffer(0.01).contains(LineString(line)):
                out = next(
                    (pt for pt in line if not geo.polygon.buffer(0.01).contains(ShapelyPoint(pt))), None
                )
                what = (
                    f"point {_xy(out)} is outside hall {t['hall']}"
                    if out
                    else f"the line leaves hall {t['hall']}"
                )
                p.append(
                    Problem(
                        file,
                        f"{edit_name}[{ti}].line",
                        what,
                        f"a line inside the hall, {_bounds(geo.polygon)}",
                    )
                )
    return p


def _check_su_orders(parts: _Parts, file: str) -> list[Problem]:
    """An SU listed twice in a hall's ``su_order``, or in the orders of two halls (an SU stands in one
    hall). Whether the cluster has the SU is for the fabric to say (layout.design.check)."""
    p: list[Problem] = []
    first: dict[tuple[int, int], str] = {}
    for b in parts.buildings:
        for hi, h in b.halls:
            order = h.get("su_order")
            if not order:
                continue
            name = f"{b.f.get('id')}/{h.get('id')}"
            for k, text in enumerate(order):
                su = su_number(text)
                if su in first:
                    where = "earlier in this hall's order" if first[su] == name else f"in {first[su]}'s order"
                    p.append(
                        Problem(
                            file,
                            f"building[{b.index}].hall[{hi}].su_order[{k}]",
                            f'SU "{text}" is already listed {where}',
                            "each SU once in the whole site",
                        )
                    )
                else:
                    first[su] = name
    return p


def _check_hall_power(power: Any, catalog: Catalog, file: str, hkey: str) -> list[Problem]:
    """A hall's [power] names catalog parts: ups, switchboard, busway, cdu."""
    if power is None:
        return []
    out = []
    for key, parts, what in (
        ("ups", catalog.ups, "UPS block"),
        ("switchboard", catalog.switchboard, "switchboard"),
        ("busway", catalog.busway, "busway"),
        ("cdu", catalog.cdu, "CDU"),
    ):
        got = getattr(power, key, None)
        if got is not None and got not in parts:
            out.append(Problem(file, f"{hkey}.power.{key}", f"unknown {what} {_value(got)}", _ids(parts)))
    return out


def _check_ducts(
    parts: _Parts, buildings: Mapping[str, tuple[int, Polygon | None, Any]], file: str
) -> list[Problem]:
    p: list[Problem] = []
    for di, d in parts.ducts:
        ends_ok = True
        for end in ("from_", "to"):
            bid = d.get(end)
            if bid is not None and bid not in buildings:
                ends_ok = False
                if bid in parts.refused:
                    continue
                p.append(
                    Problem(
                        file, f"duct[{di}].{end.rstrip('_')}", f'unknown building "{bid}"', _ids(buildings)
                    )
                )
        if d.get("from_") is not None and d.get("from_") == d.get("to"):
            p.append(
                Problem(
                    file,
                    f"duct[{di}].to",
                    f'a duct from building "{d["to"]}" to itself',
                    "two different buildings",
                )
            )
            continue
        path = d.get("path")
        if not path or not ends_ok or "from_" not in d or "to" not in d:
            continue
        for end, idx in (("from_", 0), ("to", len(path) - 1)):
            bid = d[end]
            _, fp, entry = buildings[bid]
            pt = path[idx]
            if entry is not None:
                gap = math.dist(pt, entry)
                target, near = f"building {bid}'s entry at {_xy(entry)}", tuple(entry)
            elif fp is not None:
                gap = fp.exterior.distance(ShapelyPoint(pt))
                target, near = f"building {bid}'s outer wall", _nearest_on(fp.exterior, pt)
            else:
                continue
            if gap > DUCT_END_TOLERANCE_M:
                verb = "starts" if idx == 0 else "ends"
                p.append(
                    Problem(
                        file,
                        f"duct[{di}].path[{idx}]",
                        f"path {verb} at {_xy(pt)}, {_coord(gap)} m from {target}",
                        f"a point within {_num(DUCT_END_TOLERANCE_M)} m of it, e.g. {_xy(near)}",
                    )
                )
    return p


def _check_rows(
    parts: _Parts, halls: Mapping[str, _HallGeo], templates: Mapping[str, RackTemplate] | None, file: str
) -> list[Problem]:
    p: list[Problem] = []
    if len(parts.rows) > MAX_USER_ROWS:
        return [
            Problem(
                file,
                "row",
                f"{len(parts.rows):,} [[row]] entries are more than the tool designs",
                f"at most {MAX_USER_ROWS:,} rows",
            )
        ]
    boxes: dict[str, list[tuple[int, float, float, float, float]]] = {}  # hall -> (row, x0, y0, x1, y1)
    for ri, r in parts.rows:
        tid = r.get("template")
        tpl = templates.get(tid) if templates is not None and tid is not None else None
        if templates is not None and tid is not None and tpl is None:
            p.append(Problem(file, f"row[{ri}].template", f'unknown rack template "{tid}"', _ids(templates)))
        if "hall" not in r:
            continue
        geo = halls.get(r["hall"])
        if geo is None:
            if r["hall"] not in parts.refused:
                p.append(Problem(file, f"row[{ri}].hall", f'unknown hall "{r["hall"]}"', _ids(halls)))
            continue
        origin = r.get("origin")
        if geo.polygon is None or origin is None:
            continue
        inside = geo.polygon.buffer(1e-6)
        if not inside.contains(ShapelyPoint(origin)):
            p.append(
                Problem(
                    file,
                    f"row[{ri}].origin",
                    f"row origin {_xy(origin)} is outside hall {r['hall']}",
                    f"a point inside the hall, {_bounds(geo.polygon)}",
                )
            )
            continue
        if tpl is None or "racks" not in r or "axis" not in r:
            continue
        dx, dy = (1.0, 0.0) if r["axis"] == "x" else (0.0, 1.0)
        length = r["racks"] * tpl.width_m
        end = (origin[0] + dx * length, origin[1] + dy * length)
        across = (origin[0] + dy * tpl.depth_m, origin[1] + dx * tpl.depth_m)  # racks' depth, as placed
        boxes.setdefault(r["hall"], []).append(
            (ri, origin[0], origin[1], max(end[0], across[0]), max(end[1], across[1]))
        )
        if not inside.contains(LineString([origin, end])):
            fit = _racks_that_fit(geo.polygon, origin, (dx, dy), tpl.width_m)
            p.append(
                Problem(
                    file,
                    f"row[{ri}].racks",
                    f"{r['racks']} racks of {tpl.id} ({_coord(length)} m along {r['axis']}) run out of hall {r['hall']} at {_xy(end)}",
                    f"at most {fit} racks from this origin",
                )
            )
    for hall, rows in boxes.items():
        p += _row_overlaps(hall, rows, file)
    return p


def _row_overlaps(
    hall: str, rows: Sequence[tuple[int, float, float, float, float]], file: str
) -> list[Problem]:
    """The user rows of one hall whose racks overlap an earlier row's (one problem for the first, the
    count of the others); the rack footprints are axis-aligned boxes, compared all against all."""
    if len(rows) < 2:
        return []
    a = np.asarray(rows, dtype=float)
    idx, x0, y0, x1, y1 = a[:, 0].astype(int), a[:, 1], a[:, 2], a[:, 3], a[:, 4]
    eps = 1e-6
    hit = (
        (x0[:, None] < x1[None, :] - eps)
        & (x0[None, :] < x1[:, None] - eps)
        & (y0[:, None] < y1[None, :] - eps)
        & (y0[None, :] < y1[:, None] - eps)
    )
    hit &= np.tri(len(rows), k=-1, dtype=bool)  # only an earlier row counts
    bad = np.flatnonzero(hit.any(axis=1))
    if not len(bad):
        return []
    first = int(bad[0])
    earlier = int(idx[int(np.argmax(hit[first]))])
    more = f" (and {len(bad) - 1:,} more rows like it)" if len(bad) > 1 else ""
    return [
        Problem(
            file,
            f"row[{idx[first]}].origin",
            f"racks of this row overlap those of row[{earlier}] in hall {hall}{more}",
            "rows whose racks do not overlap",
        )
    ]


def _racks_that_fit(
    hall: Polygon, origin: Sequence[float], direction: tuple[float, float], width_m: float
) -> int:
    x0, y0, x1, y1 = hall.bounds
    reach = math.hypot(x1 - x0, y1 - y0)
    ray = LineString([origin, (origin[0] + direction[0] * reach, origin[1] + direction[1] * reach)])
    inside = hall.buffer(1e-6).intersection(ray)
    pieces = list(getattr(inside, "geoms", [inside]))
    start = ShapelyPoint(origin)
    run = next((g for g in pieces if g.length > 0 and g.distance(start) < 1e-6), None)
    return int(run.length / width_m + 1e-9) if run is not None else 0


def _check_cluster(
    c: Fields | None, catalog: Catalog, templates: Mapping[str, RackTemplate] | None, file: str
) -> list[Problem]:
    p: list[Problem] = []
    if c is None:
        return p
    server, switch, nic = c.get("server"), c.get("switch"), c.get("nic")
    if server is not None and server not in catalog.server:
        p.append(Problem(file, "cluster.server", f'unknown server "{server}"', _ids(catalog.server)))
    if switch is not None and switch not in catalog.switch:
        p.append(Problem(file, "cluster.switch", f'unknown switch "{switch}"', _ids(catalog.switch)))
    if nic is not None and nic not in catalog.nic:
        p.append(Problem(file, "cluster.nic", f'unknown NIC "{nic}"', _ids(catalog.nic)))
    if templates is not None:
        gpu_templates = sorted(t for t, tpl in templates.items() if tpl.kind == "gpu")
        for key in ("rack", "rack_low_density"):
            tid = c.get(key)
            if tid is None:
                continue
            if tid not in templates or templates[tid].kind != "gpu":
                what = (
                    f'"{tid}" is a {templates[tid].kind} rack, not a GPU rack'
                    if tid in templates
                    else f'unknown GPU rack template "{tid}"'
                )
                p.append(Problem(file, f"cluster.{key}", what, _ids(gpu_templates)))
            elif server in catalog.server and templates[tid].server_id({server}) is None:
                holds = templates[tid].server_id(set(catalog.server))
                what = f"{holds} servers" if holds else "no servers"
                fitting = [t for t in gpu_templates if templates[t].server_id({server})]
                p.append(
                    Problem(
                        file,
                        f"cluster.{key}",
                        f'template "{tid}" holds {what}, not cluster.server = "{server}"',
                        _ids(fitting) if fitting else f"first add a rack template holding {server}",
                    )
                )
    gpus, pod = c.get("gpus"), c.get("pod_gpus")
    if server in catalog.server and gpus is not None:
        per = catalog.server[server].gpus
        if gpus % per:
            lo, hi = gpus // per * per, (gpus // per + 1) * per
            p.append(
                Problem(
                    file,
                    "cluster.gpus",
                    f"{gpus} GPUs is not a whole number of {server} servers of {per} GPUs",
                    f"a multiple of {per}, e.g. {lo or hi} or {hi}"
                    if lo
                    else f"a multiple of {per}, e.g. {hi}",
                )
            )
        if pod:
            if pod % per:
                p.append(
                    Problem(
                        file,
                        "cluster.pod_gpus",
                        f"{pod} GPUs is not a whole number of {server} servers of {per} GPUs",
                        f"0 for one pod, or a multiple of {per}",
                    )
                )
            elif pod > gpus:
                p.append(
                    Problem(
                        file,
                        "cluster.pod_gpus",
                        f"a pod of {pod} GPUs is larger than the cluster's {gpus} GPUs",
                        f"0 for one pod, or a multiple of {per} up to {gpus}",
                    )
                )
    return p
