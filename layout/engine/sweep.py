"""``dclayout sweep SPEC.toml``: a grid over sites x cluster options, every point through the whole
pipeline on the engine, in one table with its Pareto front (cost, optics, network power).

The spec file::

    sites = ["sites/superpod-4su.toml", "sites/seed002-32k.toml"]   # relative to the spec file
    [grid]                      # each key a list of values; every combination is a point
    gpus = [1024, 2048]
    switch = ["qm9700", "sn5600"]
    design = ["rail", "mor"]
    nic = ["cx7", "cedar7"]
    rack = ["dgx-h100-x4", "dgx-h100-x2"]   # the GPU rack template: the rack density

Grid keys are ``[cluster]`` keys (:data:`GRID_KEYS`); a point is the site with those keys set, checked
like a site file (an impossible point is a row with its ``error``, as is a point whose task failed: the
sweep goes on). Points run site by site, then in the grid's order (the last key varies fastest).

The table: ``site``, the grid keys, the figures of ``dclayout compare`` (layout.figures), plus
``cost_optics_usd`` (the BOM's transceivers + cables) and ``pareto`` (True when no other point is as good on
cost, optics modules and network power and better on one of them), ``error``.
"""

from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.errors import InputError, Problem

if TYPE_CHECKING:
    from layout.engine.cluster import Engine
    from layout.load import Inputs

GRID_KEYS = (
    "gpus", "server", "rack", "rack_low_density", "switch", "design", "nic", "pod_gpus", "tiers",
    "oversubscription", "link_mtbf_years",
)  # fmt: skip
PARETO_ON = ("cost_total_usd", "optics_total", "network_power_mw")  # all to be low
MAX_POINTS = 10_000


@dataclass(frozen=True)
class Spec:
    path: Path
    sites: tuple[Path, ...]
    grid: tuple[tuple[str, tuple[Any, ...]], ...]

    def points(self) -> list[tuple[int, dict[str, Any]]]:
        """(site number, cluster keys) of every point, in table order."""
        keys = [k for k, _ in self.grid]
        combos = list(itertools.product(*(v for _, v in self.grid))) if self.grid else [()]
        return [(i, dict(zip(keys, c, strict=True))) for i in range(len(self.sites)) for c in combos]


def load_spec(path: str | Path) -> Spec:
    """The spec file, checked: every problem as ``FILE: key: problem (allowed: ...)``."""
    from layout.load import read_toml

    path = Path(path)
    data = read_toml(path)
    file = str(path)
    problems = []
    for k in data:
        if k not in ("sites", "grid"):
            problems.append(Problem(file, k, "unknown key", "sites, grid"))
    sites = data.get("sites")
    if not isinstance(sites, list) or not sites or not all(isinstance(s, str) for s in sites):
        problems.append(
            Problem(file, "sites", "must be a non-empty list of site files", '["sites/a.toml", ...]')
        )
        sites = []
    grid = data.get("grid", {})
    if not isinstance(grid, dict):
        problems.append(Problem(file, "grid", "must be a table", "[grid] with lists of cluster values"))
        grid = {}
    items = []
    for k, v in grid.items():
        if k not in GRID_KEYS:
            problems.append(Problem(file, f"grid.{k}", "unknown key", ", ".join(GRID_KEYS)))
        elif not isinstance(v, list) or not v or any(isinstance(x, dict | list) for x in v):
            problems.append(Problem(file, f"grid.{k}", "must be a non-empty list of values", f"{k} = [a, b]"))
        else:
            items.append((k, tuple(v)))
    n = len(sites) * int(np.prod([len(v) for _, v in items])) if items else len(sites)
    if n > MAX_POINTS:
        problems.append(
            Problem(file, "grid", f"{n:,} points is more than a sweep runs", f"at most {MAX_POINTS:,}")
        )
    if problems:
        raise InputError(problems)
    return Spec(path, tuple((path.parent / s) for s in sites), tuple(items))


@dataclass(frozen=True)
class Shared:
    """What every point's task needs, sent to each worker once: per site its raw TOML data and inputs."""

    data: tuple[dict[str, Any], ...]
    inputs: tuple[Inputs, ...]


def run_point(shared: Shared, item: tuple[int, dict[str, Any]], state: dict[str, Any]) -> dict[str, Any]:
    """One row of the sweep (an engine task)."""
    from layout import design as design_mod
    from layout.load import site_from_data
    from layout.model.site import changed_cluster

    si, keys = item
    base = shared.inputs[si]
    row: dict[str, Any] = {"site": base.stem, **keys}
    data = copy.deepcopy(shared.data[si])
    data["cluster"] = changed_cluster(data.get("cluster", {}), keys)
    try:
        vin = site_from_data(data, base.path, base.catalog, base.templates, base.templates_dir)
        design = design_mod.run(vin)
    except InputError as e:
        row["error"] = "; ".join(f"{p.key}: {p.problem}" for p in e.problems)
        return row
    row.update(design.figure_row())
    b = design.bom
    row["cost_optics_usd"] = round(
        float(b.loc[b["category"].isin(["transceivers", "cables"]), "extended_usd"].sum()), 2
    )
    return row


def sweep(spec: Spec, engine: Engine, done: Any = None) -> pd.DataFrame:
    """The sweep's table (module docstring); ``done(index, row)`` as each point ends."""
    from layout import figures
    from layout.engine.cluster import Failed
    from layout.load import load_site, read_toml

    inputs = tuple(load_site(p) for p in spec.sites)
    shared = Shared(tuple(read_toml(p) for p in spec.sites), inputs)
    todo = spec.points()
    got = engine.map(run_point, shared, todo, done)
    rows = [
        {"site": inputs[si].stem, **keys, "error": f"failed: {r.reason}"} if isinstance(r, Failed) else r
        for (si, keys), r in zip(todo, got, strict=True)
    ]
    optical = sorted({m for i in inputs for m, spec_m in i.catalog.media.items() if spec_m.optical})
    cols = [
        "site",
        *(k for k, _ in spec.grid),
        *figures.figure_columns(optical),
        "cost_optics_usd",
        "pareto",
        "error",
    ]
    df = figures.table(rows, cols)
    df["pareto"] = pareto(df)
    return df


def pareto(df: pd.DataFrame) -> np.ndarray:
    """True for each row no other row matches or beats on every ``PARETO_ON`` figure while beating it on
    one (rows with an error are never on the front)."""
    ok = (df["error"] == "").to_numpy()
    x = df[list(PARETO_ON)].astype(float).to_numpy()
    out = np.zeros(len(df), bool)
    for i in np.flatnonzero(ok):
        others = x[ok]
        dominated = np.any(np.all(others <= x[i], axis=1) & np.any(others < x[i], axis=1))
        out[i] = not dominated
    return out
