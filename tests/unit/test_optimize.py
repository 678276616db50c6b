"""The layout search (layout.engine.optimize) in this process, on the shipped 4-SU SuperPOD hall: the
optimised site file keeps the original's text and, designed again from disk, reproduces the optimum's
figures; the search never returns a layout with a new violation or a dearer one; a fixed seed gives the
same search twice; the lower bound lies below every layout found."""

from __future__ import annotations

import dataclasses
import difflib
from pathlib import Path

import pytest

from layout import design
from layout.engine import Engine
from layout.engine import optimize as opt
from layout.load import load_site

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "sites" / "superpod-4su.toml"


@pytest.fixture(scope="module")
def found() -> tuple[opt.Problem, opt.Result]:
    inputs = load_site(SITE)
    problem = opt.Problem(inputs, opt.Space.of(inputs.site), 5.0)
    with Engine(workers=1) as engine:
        return problem, opt.search(problem, engine, seed=1, max_evals=17, batch=4)


def test_the_baseline_layout_is_the_site_as_it_is() -> None:
    inputs = load_site(SITE)
    space = opt.Space.of(inputs.site)
    lay = space.baseline(inputs.site)
    assert space.apply(inputs.site, lay) == inputs.site
    assert space.options(inputs.site, lay) == {}


def test_the_best_is_feasible_and_no_dearer(found: tuple[opt.Problem, opt.Result]) -> None:
    _, r = found
    assert r.evaluations == 17 and not r.failed
    assert opt.feasible(r.best, r.baseline) and r.best["violations"] == []
    assert r.best["optics_usd"] < r.baseline["optics_usd"]
    assert [h["best"] for h in r.history] == sorted((h["best"] for h in r.history), reverse=True)


def test_the_written_site_keeps_the_text_and_reproduces_the_optimum(
    found: tuple[opt.Problem, opt.Result], tmp_path: Path
) -> None:
    problem, r = found
    text = SITE.read_text(encoding="utf-8")
    options = problem.space.options(problem.inputs.site, r.best_layout)
    assert options  # something moved
    new = opt.optimized_text(text, options)
    added = [ln[1:] for ln in difflib.ndiff(text.splitlines(), new.splitlines()) if ln.startswith("+ ")]
    removed = [ln[2:] for ln in difflib.ndiff(text.splitlines(), new.splitlines()) if ln.startswith("- ")]
    assert all(
        ln.strip().startswith(("mdf_at =", "spine_at =", "row_axis =", "su_order =")) for ln in added
    ), added
    assert all(ln.strip().startswith("row_axis =") for ln in removed), removed  # comments all kept
    path = tmp_path / "superpod-4su-optimized.toml"
    path.write_text(new, encoding="utf-8")
    again = design.run(load_site(path))
    assert opt.score(again, 5.0) == r.best


def test_a_fixed_seed_gives_the_same_search(found: tuple[opt.Problem, opt.Result]) -> None:
    problem, r = found
    with Engine(workers=1) as engine:
        again = opt.search(problem, engine, seed=1, max_evals=17, batch=4)
    assert again.best_layout == r.best_layout and again.history == r.history


def test_the_lower_bound_is_below_every_layout_found(found: tuple[opt.Problem, opt.Result]) -> None:
    problem, r = found
    bound = opt.lower_bound(design.run(problem.inputs))
    assert 0 < bound < r.best["optics_usd"] <= r.baseline["optics_usd"]


def test_the_optimised_report_has_the_optimisation_chapter(found: tuple[opt.Problem, opt.Result]) -> None:
    import io

    from pypdf import PdfReader

    from layout.export.pdf import render_pdf

    problem, r = found
    report = {
        "evaluations": r.evaluations,
        "seed": 1,
        "objective": "optics",
        "baseline": r.baseline,
        "best": r.best,
        "saving_pct": 1.0,
        "lower_bound_optics_usd": 1_000_000.0,
        "gap_to_lower_bound_pct": 50.0,
        "moved": problem.space.options(problem.inputs.site, r.best_layout),
        "history": r.history,
    }
    site = problem.space.apply(problem.inputs.site, r.best_layout)
    import dataclasses

    pdf = render_pdf(design.run(dataclasses.replace(problem.inputs, site=site)), optimized=report)
    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(pdf)).pages)
    assert "Layout optimisation" in text and "Convergence" in text
    assert (
        f"${r.baseline['optics_usd'] / 1e6:,.2f} M" in text
        and f"${r.best['optics_usd'] / 1e6:,.2f} M" in text
    )
    for where, keys in report["moved"].items():
        assert where in text and all(k in text for k in keys)


def test_the_chosen_layout_is_one_undoable_edit_of_the_site(
    found: tuple[opt.Problem, opt.Result], tmp_path: Path
) -> None:
    from layout.tui.session import Session

    problem, r = found
    site = tmp_path / "superpod-4su.toml"
    site.write_text(SITE.read_text(encoding="utf-8"), encoding="utf-8")
    session = Session()
    session.open(site)
    before = session.text
    assert session.apply(opt.layout_edit(problem.space.options(problem.inputs.site, r.best_layout)))
    assert opt.score(design.run(session.inputs), 5.0) == r.best
    assert session.undo() is not None and session.text == before


def test_a_hall_too_small_for_the_grid_keeps_its_own_layout() -> None:
    import copy
    import tomllib

    from layout.load import DEFAULT_TEMPLATES_DIR, load_library, site_from_data

    data = tomllib.loads(SITE.read_text(encoding="utf-8"))
    big = copy.deepcopy(data["building"][0]["hall"][0])
    # an L-shaped strip along two walls: every grid point (10..90 % of its bounds) lies outside it
    tiny = {"id": "H9", "polygon": [[0, 0], [47, 0], [47, 1], [1, 1], [1, 29], [0, 29]]}
    data["building"][0]["hall"] = [big, tiny]
    catalog, templates = load_library(DEFAULT_TEMPLATES_DIR)
    inputs = site_from_data(data, Path("x.toml"), catalog, templates, DEFAULT_TEMPLATES_DIR)
    space = opt.Space.of(inputs.site)
    assert all(p is None for col in space.points[1] for p in col)
    lay = space.gather_all(inputs.site, space.baseline(inputs.site), "centre")
    assert lay.spine[1] is None and lay.spine[0] is not None and lay.mdf[0] is not None


def test_the_assignment_step_runs_in_the_search_and_only_when_asked(
    found: tuple[opt.Problem, opt.Result],
) -> None:
    problem, r = found
    assert r.assign_steps >= 1  # the first batch starts with it, on the site as it is
    with Engine(workers=1) as engine:
        plain = opt.search(problem, engine, seed=1, max_evals=9, batch=4, assign=False)
    assert plain.assign_steps == 0 and plain.best_layout.order == ()
    assert "su_order" not in {
        k for v in problem.space.options(problem.inputs.site, plain.best_layout).values() for k in v
    }


def test_a_layout_with_su_orders_changes_the_buildings_of_those_halls() -> None:
    inputs = load_site(SITE)
    space = opt.Space.of(inputs.site)
    base = space.baseline(inputs.site)
    lay = base.with_orders({0: ("p0-u1", "p0-u0")})
    assert lay.order == (("p0-u1", "p0-u0"),) and lay.su_order(0) == ("p0-u1", "p0-u0")
    assert lay.buildings_changed(base, space) == {0} and base.with_orders({}) == base
    assert space.apply(inputs.site, lay).building[0].hall[0].su_order == ["p0-u1", "p0-u0"]
    assert space.options(inputs.site, lay) == {"B1/H1": {"su_order": ["p0-u1", "p0-u0"]}}


def test_the_whole_bom_objective_prices_every_category_and_never_ends_dearer() -> None:
    """``--objective bom``: the figure is the whole BOM of the candidate (the design's own total, power
    chain and trays included, not only the optics), with the optics' energy added for ``bom+energy``; the
    best a search finds on it costs no more in all than the site as it is."""
    inputs = load_site(SITE)
    problem = opt.Problem(inputs, opt.Space.of(inputs.site), 5.0)
    with Engine(workers=1) as engine:
        r = opt.search(problem, engine, seed=1, max_evals=9, batch=4, kind="bom")
    again = design.run(dataclasses.replace(inputs, site=problem.space.apply(inputs.site, r.best_layout)))
    total = again.summary()["cost_usd"]["total"]
    assert r.best["bom_usd"] == pytest.approx(total, abs=0.01)
    assert r.best["bom_usd"] > r.best["optics_usd"] > 0  # servers, switches, power: not only the optics
    assert opt.objective(r.best, "bom") == r.best["bom_usd"]
    assert opt.objective(r.best, "bom+energy") == pytest.approx(
        r.best["bom_usd"] + r.best["optics_energy_usd"]
    )
    assert opt.objective(r.best, "optics+energy") == pytest.approx(
        r.best["optics_usd"] + r.best["optics_energy_usd"]
    )
    assert r.best["bom_usd"] <= r.baseline["bom_usd"] and opt.feasible(r.best, r.baseline)
    assert [h["best"] for h in r.history] == sorted((h["best"] for h in r.history), reverse=True)
    assert r.history[0]["best"] == r.baseline["bom_usd"]
