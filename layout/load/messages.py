"""Wording of problems: values as the person wrote them, pydantic errors reworded into
``file: key: problem (allowed: ...)`` problems, and problems sorted into file order."""

from __future__ import annotations

import difflib
import json
import math
import types
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from layout.errors import InputError, Problem
from layout.model.site import SU_ID_PATTERN


def dotted(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if part == "[key]":  # pydantic's mark of a table key's own error: the key names it already
            continue
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


# ----------------------------------------------------------------------------- wording of the values
def num(v: float) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if math.isfinite(v) and v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


def coord(v: float) -> str:
    return num(round(float(v), 3))


def xy(pt: Sequence[float]) -> str:
    return f"({coord(pt[0])}, {coord(pt[1])})"


def as_toml(v: Any, limit: int = 60) -> str:
    """A value as the person wrote it in TOML."""
    if isinstance(v, str):
        out = json.dumps(v, ensure_ascii=False)
    elif isinstance(v, bool | int | float):
        out = num(v)
    elif isinstance(v, list | tuple):
        out = "[" + ", ".join(as_toml(x, limit) for x in v) + "]"
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


def id_list(ids: Iterable[str]) -> str:
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


def strip_wrappers(tp: Any) -> Any:
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
        tp = strip_wrappers(tp)
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
    parts = [f"{sym} {num(bounds[b])}" for b, sym in _BOUNDS if b in bounds]
    name = next((p for p in reversed(loc) if isinstance(p, str)), "")
    unit = _unit(name)
    return " and ".join(parts) + (f" {unit}" if unit and parts else "")


def _example(tp: Any) -> str:
    tp = strip_wrappers(tp)
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
        return " or ".join(as_toml(a) for a in args)
    if origin is tuple:
        return "[x, y]"
    if origin is list and args and get_origin(strip_wrappers(args[0])) is tuple:
        return "[[x, y], ...]"
    if origin is list:
        return "[...]"
    return "{ ... }"


def _missing_allowed(model: type[BaseModel], loc: Sequence[Any], choices: Sequence[str] | None) -> str:
    tp, _, _ = _walk(model, loc)
    name = str(loc[-1])
    header = ".".join(str(p) for p in loc if isinstance(p, str))
    inner = strip_wrappers(tp)
    if _is_model(inner):
        return f"add a [{header}] table"
    if get_origin(inner) is list and _is_model(strip_wrappers(get_args(inner)[0])):
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
    got = f", got {as_toml(val)}"
    if kind == "int_type" and isinstance(val, float):
        got = f", got {val!r}"  # 8.0, not 8: the decimal point is what makes it no whole number here
    if kind == "missing" and loc and isinstance(loc[-1], int):  # a tuple such as [x, y] with too few items
        return loc[:-1], f"must be a pair [x, y]{got}", _PAIR
    if kind == "extra_forbidden":
        owner = strip_wrappers(_walk(model, loc[:-1])[0])
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
        return loc, f"must be {sym} {num(ctx[b])}{got}", _bounds_text(err, model, loc)
    if kind in _TYPE_TEXT:
        tp = _walk(model, loc)[0]
        if kind == "string_type" and pattern_key in choices:
            return loc, f"must be {_TYPE_TEXT[kind]}{got}", ", ".join(choices[pattern_key])
        header = ".".join(str(p) for p in loc if isinstance(p, str))
        inner = strip_wrappers(tp)
        if (
            kind == "list_type"
            and get_origin(inner) is list
            and _is_model(strip_wrappers(get_args(inner)[0]))
        ):
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
        tp = strip_wrappers(_walk(model, loc)[0])
        options = get_args(tp) if get_origin(tp) is Literal else ()
        allowed = ", ".join(as_toml(o) for o in options) or str(ctx.get("expected", "")).replace("'", '"')
        return loc, f"unknown value {as_toml(val)}", allowed
    if kind == "string_pattern_mismatch":
        what, example = _PATTERNS.get(str(ctx.get("pattern")), (f"text matching {ctx.get('pattern')}", ""))
        return loc, f"must be {what}{got}", example
    if kind in ("too_short", "too_long"):
        if ctx.get("field_type") == "Tuple":
            return loc, f"must be a pair [x, y]{got}", _PAIR
        n, actual = ctx.get("min_length", ctx.get("max_length")), ctx.get("actual_length")
        entries = "entry" if n == 1 else "entries"
        if kind == "too_short":
            inner = strip_wrappers(_walk(model, loc)[0])
            item = (
                strip_wrappers(get_args(inner)[0]) if get_origin(inner) is list and get_args(inner) else None
            )
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
    """One Problem per pydantic error; a run of the same error on the same key of list items (whatever
    their indices) is merged into the first, "(and N more like it)".

    ``choices`` maps a key pattern such as ``cluster.server`` or ``row[*].template`` to the known ids,
    listed as what is allowed when that key is missing or not text.
    """
    out: list[Problem] = []
    run_key: tuple[Any, ...] | None = None
    run = 0
    for err in error.errors():
        loc, problem, allowed = _error_problem(err, model, choices or {})
        # the same error on the same key of items of lists (columns[i].size_m[j] for every i and j):
        # one line for the run, not one per item (20,000 columns were 20,000 lines)
        pattern = tuple("*" if isinstance(part, int) else part for part in loc)
        key = (pattern, err["type"]) if any(isinstance(part, int) for part in loc) else None
        if key is not None and key == run_key:
            run += 1
            last = out[-1]
            base = last.problem.split(" (and ")[0]
            out[-1] = Problem(last.file, last.key, f"{base} (and {run:,} more like it)", last.allowed)
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
