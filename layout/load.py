"""Read and validate the inputs: site files, rack templates and the part catalog.

Every problem becomes one line ``FILE: dotted.key: problem (allowed: ...)`` so a person can act on it.
Pydantic checks types and ranges; the geometric and cross-reference checks (polygons, halls inside
buildings, known ids, whole servers) run here afterwards and are collected, not raised one by one.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError
from shapely.geometry import Polygon, box
from shapely.validation import explain_validity

from layout.model import Catalog, RackTemplate, SiteFile

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TEMPLATES_DIR = PACKAGE_ROOT / "rack_templates"


@dataclass(frozen=True)
class Problem:
    file: str
    key: str
    problem: str
    allowed: str = ""

    def __str__(self) -> str:
        tail = f" (allowed: {self.allowed})" if self.allowed else ""
        return f"{self.file}: {self.key}: {self.problem}{tail}"


class InputError(Exception):
    """Bad input: one or more problems, each naming the file, the key and what is allowed."""

    def __init__(self, problems: Sequence[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


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


# ------------------------------------------------------------------------------------------ TOML + keys
def read_toml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError([Problem(str(path), "(file)", "file not found")]) from None
    except UnicodeDecodeError as e:
        raise InputError([Problem(str(path), "(file)", f"not UTF-8 text ({e.reason})")]) from None
    return parse_toml(text, str(path))


def parse_toml(text: str, name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        where = "(syntax)"
        if "(at line" in msg:
            msg, _, pos = msg.partition(" (at ")
            where = pos.rstrip(")")  # "line 3, column 7"
        raise InputError([Problem(name, where, f"TOML syntax error: {msg}")]) from None


def dotted(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _model_at(model: type[BaseModel], loc: Sequence[Any]) -> type[BaseModel] | None:
    """The pydantic model class that owns the last element of ``loc`` (for listing allowed keys)."""
    cur: Any = model
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if isinstance(cur, type) and issubclass(cur, BaseModel):
            fld = cur.model_fields.get(part)
            if fld is None:
                alias = {f.alias: f for f in cur.model_fields.values() if f.alias}
                fld = alias.get(part)
            if fld is None:
                # dict[str, Model]: the key is a free name; stay on the value type
                return None
            cur = _unwrap(fld.annotation)
        elif isinstance(cur, dict):
            return None
    return cur if isinstance(cur, type) and issubclass(cur, BaseModel) else None


def _unwrap(tp: Any) -> Any:
    while get_origin(tp) is not None:
        args = [a for a in get_args(tp) if a is not type(None)]
        if get_origin(tp) is dict and len(args) == 2:
            tp = args[1]
        elif args:
            tp = args[0]
        else:
            break
    return tp


def _field_names(model: type[BaseModel]) -> list[str]:
    return [f.alias or name for name, f in model.model_fields.items()]


def _allowed_from_error(err: Any, model: type[BaseModel]) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "extra_forbidden":
        owner = _model_at(model, err["loc"])
        return ", ".join(_field_names(owner)) if owner else ""
    if kind == "literal_error":
        return str(ctx.get("expected", "")).replace("'", '"')
    bounds = [f"{sym} {ctx[b]}" for b, sym in (("gt", ">"), ("ge", ">="), ("lt", "<"), ("le", "<=")) if b in ctx]
    if bounds:
        return ", ".join(bounds)
    if kind == "missing":
        return "add this key"
    if kind == "string_pattern_mismatch":
        return f"text matching {ctx.get('pattern', '')}"
    if kind in ("too_short", "too_long"):
        return f"at least {ctx['min_length']} items" if "min_length" in ctx else f"at most {ctx.get('max_length')} items"
    return ""


def _problem_text(err: Any) -> str:
    kind = err["type"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required key is missing"
    val = err.get("input")
    msg = err["msg"]
    if isinstance(val, int | float | str) and not isinstance(val, bool):
        return f"{msg} (got {val!r})"
    return msg


def validate_model(model: type[BaseModel], data: dict[str, Any], name: str) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            loc = [p for p in err["loc"] if p not in ("function-after",)]
            problems.append(Problem(name, dotted(loc), _problem_text(err), _allowed_from_error(err, model)))
        raise InputError(problems) from None


# --------------------------------------------------------------------------------- catalog + templates
def load_catalog(templates_dir: Path = DEFAULT_TEMPLATES_DIR) -> Catalog:
    path = templates_dir / "catalog.toml"
    return validate_model(Catalog, read_toml(path), str(path))  # type: ignore[no-any-return]


def load_templates(templates_dir: Path = DEFAULT_TEMPLATES_DIR) -> dict[str, RackTemplate]:
    out: dict[str, RackTemplate] = {}
    problems: list[Problem] = []
    for path in sorted(templates_dir.glob("*.toml")):
        if path.name == "catalog.toml":
            continue
        try:
            tpl: RackTemplate = validate_model(RackTemplate, read_toml(path), str(path))
        except InputError as e:
            problems += e.problems
            continue
        if tpl.id in out:
            problems.append(Problem(str(path), "id", f"duplicate template id {tpl.id!r}", "a unique id"))
        out[tpl.id] = tpl
    if problems:
        raise InputError(problems)
    return out


# --------------------------------------------------------------------------------------------- site
def load_site(path: str | Path, templates_dir: Path | None = None) -> Inputs:
    """Read, validate and cross-check a site file. Raises InputError listing every problem found."""
    path = Path(path)
    tdir = templates_dir or _templates_dir_for(path)
    catalog = load_catalog(tdir)
    templates = load_templates(tdir)
    data = read_toml(path)
    return site_from_data(data, path, catalog, templates, tdir)


def site_from_data(
    data: dict[str, Any], path: Path, catalog: Catalog, templates: dict[str, RackTemplate], tdir: Path
) -> Inputs:
    site: SiteFile = validate_model(SiteFile, data, str(path))
    problems = check_site(site, catalog, templates, str(path))
    if problems:
        raise InputError(problems)
    return Inputs(site=site, catalog=catalog, templates=templates, path=path, templates_dir=tdir)


def _templates_dir_for(site_path: Path) -> Path:
    beside = site_path.resolve().parent.parent / "rack_templates"
    return beside if (beside / "catalog.toml").exists() else DEFAULT_TEMPLATES_DIR


def _polygon(points: Sequence[tuple[float, float]], file: str, key: str, problems: list[Problem]) -> Polygon | None:
    pts = list(points)
    if len(pts) >= 2 and pts[0] == pts[-1]:
        pts = pts[:-1]
    if len(pts) < 3:
        problems.append(Problem(file, key, f"open polygon: {len(pts)} corner(s)", "at least 3 corners [[x, y], ...]"))
        return None
    poly = Polygon(pts)
    if not poly.is_valid:
        why = explain_validity(poly)
        detail = why.split("[")[0]
        at = why[why.find("[") + 1 : why.find("]")] if "[" in why else ""
        where = f" at ({', '.join(f'{float(v):g}' for v in at.split())})" if at else ""
        problems.append(
            Problem(file, key, f"polygon is not simple: {detail.lower()}{where}", "a simple polygon whose edges do not cross")
        )
        return None
    if poly.area <= 0:
        problems.append(Problem(file, key, "polygon has zero area", "at least 3 corners that enclose an area"))
        return None
    return poly


def check_site(site: SiteFile, catalog: Catalog, templates: dict[str, RackTemplate], file: str) -> list[Problem]:
    p: list[Problem] = []
    seen_b: set[str] = set()
    hall_keys: set[str] = set()
    for bi, b in enumerate(site.building):
        bkey = f"building[{bi}]"
        if b.id in seen_b:
            p.append(Problem(file, f"{bkey}.id", f"duplicate building id {b.id!r}", "a unique id"))
        seen_b.add(b.id)
        fp = _polygon(b.footprint, file, f"{bkey}.footprint", p)
        halls: list[tuple[str, Polygon]] = []
        seen_h: set[str] = set()
        for hi, h in enumerate(b.hall):
            hkey = f"{bkey}.hall[{hi}]"
            if h.id in seen_h:
                p.append(Problem(file, f"{hkey}.id", f"duplicate hall id {h.id!r} in building {b.id}", "a unique id"))
            seen_h.add(h.id)
            hall_keys.add(f"{b.id}/{h.id}")
            hp = _polygon(h.polygon, file, f"{hkey}.polygon", p)
            if hp is None:
                continue
            if fp is not None and not fp.buffer(1e-6).contains(hp):
                p.append(Problem(file, f"{hkey}.polygon", f"hall {b.id}/{h.id} is not inside building {b.id}'s footprint",
                                 f"a polygon within the footprint, bounds {_bounds(fp)}"))
            for other_id, op in halls:
                if hp.intersection(op).area > 1e-6:
                    p.append(Problem(file, f"{hkey}.polygon", f"hall {h.id} overlaps hall {other_id}", "halls that do not overlap"))
            halls.append((h.id, hp))
            for ci, c in enumerate(h.columns):
                sq = box(c.at[0] - c.size_m[0] / 2, c.at[1] - c.size_m[1] / 2, c.at[0] + c.size_m[0] / 2, c.at[1] + c.size_m[1] / 2)
                if not hp.contains(sq):
                    p.append(Problem(file, f"{hkey}.columns[{ci}].at", f"column at ({c.at[0]:g}, {c.at[1]:g}) is outside hall {b.id}/{h.id}",
                                     f"a point inside the hall, bounds {_bounds(hp)}"))
            for ki, k in enumerate(h.keepouts):
                kp = _polygon(k.polygon, file, f"{hkey}.keepouts[{ki}].polygon", p)
                if kp is not None and not kp.intersects(hp):
                    p.append(Problem(file, f"{hkey}.keepouts[{ki}].polygon", f"keep-out does not touch hall {b.id}/{h.id}",
                                     f"a polygon overlapping the hall, bounds {_bounds(hp)}"))
    for di, d in enumerate(site.duct):
        for end, bid in (("from", d.from_), ("to", d.to)):
            if bid not in seen_b:
                p.append(Problem(file, f"duct[{di}].{end}", f"unknown building {bid!r}", ", ".join(sorted(seen_b))))
    p += _check_cluster(site, catalog, templates, file)
    for ri, r in enumerate(site.row):
        if r.hall not in hall_keys:
            p.append(Problem(file, f"row[{ri}].hall", f"unknown hall {r.hall!r}", ", ".join(sorted(hall_keys))))
        if r.template not in templates:
            p.append(Problem(file, f"row[{ri}].template", f"unknown rack template {r.template!r}", ", ".join(sorted(templates))))
    for name, edits in (("tray_block", site.tray_block), ("tray_add", site.tray_add)):
        for ti, t in enumerate(edits):
            if t.hall not in hall_keys:
                p.append(Problem(file, f"{name}[{ti}].hall", f"unknown hall {t.hall!r}", ", ".join(sorted(hall_keys))))
    return p


def _check_cluster(site: SiteFile, catalog: Catalog, templates: dict[str, RackTemplate], file: str) -> list[Problem]:
    p: list[Problem] = []
    c = site.cluster
    if c.server not in catalog.server:
        p.append(Problem(file, "cluster.server", f"unknown server {c.server!r}", ", ".join(sorted(catalog.server))))
    if c.switch not in catalog.switch:
        p.append(Problem(file, "cluster.switch", f"unknown switch {c.switch!r}", ", ".join(sorted(catalog.switch))))
    if c.nic not in catalog.nic:
        p.append(Problem(file, "cluster.nic", f"unknown NIC {c.nic!r}", ", ".join(sorted(catalog.nic))))
    gpu_templates = sorted(t for t, tpl in templates.items() if tpl.kind == "gpu")
    for key in ("rack", "rack_low_density"):
        tid = getattr(c, key)
        if tid is None:
            continue
        if tid not in templates or templates[tid].kind != "gpu":
            p.append(Problem(file, f"cluster.{key}", f"unknown GPU rack template {tid!r}", ", ".join(gpu_templates)))
        elif c.server in catalog.server and templates[tid].server_id({c.server}) is None:
            holds = templates[tid].server_id(set(catalog.server)) or "no server"
            p.append(Problem(file, f"cluster.{key}", f"template {tid!r} holds {holds}, not {c.server!r}",
                             ", ".join(t for t in gpu_templates if templates[t].server_id({c.server}))))
    if c.server in catalog.server:
        per = catalog.server[c.server].gpus
        if c.gpus % per:
            lo, hi = c.gpus // per * per, (c.gpus // per + 1) * per
            p.append(Problem(file, "cluster.gpus", f"{c.gpus} GPUs is not a whole number of {c.server} servers ({per} GPUs each)",
                             f"a multiple of {per}, e.g. {lo or hi} or {hi}"))
        if c.pod_gpus:
            if c.pod_gpus % per:
                p.append(Problem(file, "cluster.pod_gpus", f"{c.pod_gpus} GPUs is not a whole number of {c.server} servers",
                                 f"a multiple of {per}, or 0 for one pod"))
            elif c.pod_gpus > c.gpus:
                p.append(Problem(file, "cluster.pod_gpus", f"pod of {c.pod_gpus} GPUs is larger than the cluster ({c.gpus})",
                                 f"0 (one pod) up to {c.gpus}"))
    return p


def _bounds(poly: Polygon) -> str:
    x0, y0, x1, y1 = poly.bounds
    return f"x {x0:g}..{x1:g}, y {y0:g}..{y1:g}"
