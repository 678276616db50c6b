"""The TUI's background layout search (layout.tui.optimizer, issue 17 item 4): headless through a Session
(the search is the CLI's for the same seed and evaluations; accepting its best is one edit that undo
takes back byte for byte; a result made for another site text is refused; stop keeps the best so far),
then driven by Pilot (O starts it and the keys still work, the panel and the status line show it, O
stops it, A accepts it, ctrl+z and ctrl+y)."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from test_tui import ROOT, copy_site, designed, settled, shown, sync
from textual.pilot import Pilot

from layout import bom, design
from layout.cli import main
from layout.engine import Engine
from layout.engine import optimize as opt
from layout.load import load_site
from layout.siteedit import SetCluster
from layout.tui import optimizer
from layout.tui.app import DCLayoutApp
from layout.tui.session import Session

SMALL = optimizer.Budget(evaluations=9, seconds=600.0)  # 9 designs of superpod-4su: ~1 s, finds -1.06 %


def text_of(renderable: Any, width: int = 100) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


@pytest.fixture
def session(tmp_path: Path) -> Session:
    s = Session()
    s.open(copy_site("superpod-4su", tmp_path))
    return s


@pytest.fixture
def finished(session: Session) -> optimizer.Progress:
    reports: list[optimizer.Progress] = []
    progress = optimizer.Optimisation(session.inputs, session.text, reports.append, SMALL).run()
    assert reports[-1] is progress
    # one report per design (the site as it is, then rounds of 4) and one at the end of each round
    running = [p.evaluations for p in reports if p.state == optimizer.RUNNING]
    assert running == [1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 9]
    assert [p.result is not None for p in reports[:6]] == [False] * 5 + [True]  # the first round's end
    return progress


def test_the_budget_grows_with_the_halls() -> None:
    def budget(name: str) -> int:
        return optimizer.budget_for(load_site(ROOT / "sites" / f"{name}.toml").site).evaluations

    assert budget("superpod-4su") == 16 + 24 * 1  # one hall
    assert budget("seed002-32k") == 16 + 24 * 4  # four halls
    assert budget("campus-100k") == 200  # eight halls: 208, capped at the CLI's default


def test_the_search_is_the_clis_for_the_same_seed_and_evaluations(
    session: Session, finished: optimizer.Progress, tmp_path: Path
) -> None:
    assert finished.state == optimizer.DONE and finished.evaluations == 9 and finished.result is not None
    assert session.editor is not None
    args = [str(session.editor.path), "--out", str(tmp_path / "out"), "--evaluations", "9", "--workers", "1"]
    assert main(["optimize", *args]) == 0
    cli = json.loads((tmp_path / "out" / "optimize.json").read_text(encoding="utf-8"))
    assert cli["seed"] == optimizer.SEED and cli["years"] == optimizer.YEARS
    assert finished.result.history == cli["history"] and finished.options == cli["moved"] != {}
    assert json.loads(json.dumps(finished.result.best)) == cli["best"]
    assert json.loads(json.dumps(finished.result.baseline)) == cli["baseline"]
    assert finished.saving_usd == pytest.approx(cli["saving_usd"]) and finished.saving_usd > 0


def test_the_search_has_its_own_design_cache(session: Session) -> None:
    session.design()
    before = session.memo.sizes()
    optimizer.Optimisation(session.inputs, session.text, budget=SMALL).run()
    assert session.memo.sizes() == before  # 9 designs of other layouts, none kept in the session's


def test_accepting_is_one_edit_that_undo_takes_back_byte_for_byte(
    session: Session, finished: optimizer.Progress
) -> None:
    before = session.text
    assert optimizer.accept(session, finished)
    after = session.text
    assert after == opt.optimized_text(before, finished.options) != before
    assert finished.result is not None
    assert opt.score(design.run(session.inputs), optimizer.YEARS) == finished.result.best  # the optimum
    # the whole BOM the panel shows, as it was and after: that of the designs of the two texts
    assert finished.bom is not None
    original = load_site(finished.path)  # the file on disk: not saved
    for shown_bom, d in zip(finished.bom, (design.run(original), design.run(session.inputs)), strict=True):
        t = bom.totals(d.bom)
        assert shown_bom == {**t["by_category"], "total": t["total"]}
    assert session.undo() is not None and session.text == before
    assert session.undo() is None  # it was one edit
    assert session.redo() is not None and session.text == after


def test_a_result_for_another_site_text_is_refused(session: Session, finished: optimizer.Progress) -> None:
    before = session.text
    assert session.apply(SetCluster("design", "mor"))
    edited = session.text
    with pytest.raises(optimizer.StaleResult, match="another site text"):
        optimizer.accept(session, finished)
    assert session.text == edited  # nothing applied
    assert optimizer.relation(finished, session.editor.path if session.editor else None, edited, None) == (
        optimizer.STALE
    )
    session.undo()  # the very text the search was made for again: accepted
    assert session.text == before and optimizer.accept(session, finished)


def test_a_result_for_another_site_file_is_refused(
    session: Session, finished: optimizer.Progress, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    session.open(copy_site("superpod-4su", other))  # the same text, another file
    with pytest.raises(optimizer.StaleResult):
        optimizer.accept(session, finished)


@pytest.mark.parametrize("whole_bom", [True, False])
def test_stop_ends_the_search_after_the_design_under_way_with_the_best_so_far(
    session: Session, whole_bom: bool
) -> None:
    run: optimizer.Optimisation

    def report(p: optimizer.Progress) -> None:
        if p.evaluations == 7:
            run.stop(whole_bom)

    run = optimizer.Optimisation(session.inputs, session.text, report, optimizer.Budget(40, 600.0))
    p = run.run()
    assert p.state == optimizer.STOPPED and p.evaluations == 7
    assert (p.bom is not None) == whole_bom  # the BOM of the best is priced unless not wanted (A, q)
    # the best of the rounds done before the stop: baseline + 2 rounds of 4 would be 9
    assert p.result is not None and p.result.evaluations == 5
    problem = opt.Problem(session.inputs, opt.Space.of(session.inputs.site), optimizer.YEARS)
    with Engine(workers=1) as engine:
        five = opt.search(problem, engine, seed=0, max_evals=5, batch=4)
    assert p.result.best_layout == five.best_layout and p.result.history == five.history


def test_while_told_to_yield_the_search_waits_between_designs_and_finds_the_same(
    session: Session, finished: optimizer.Progress
) -> None:
    calls: list[int] = []

    def busy() -> bool:  # the TUI's design is running for two looks out of three
        calls.append(1)
        return len(calls) % 3 != 0

    p = optimizer.Optimisation(session.inputs, session.text, budget=SMALL, yield_to=busy).run()
    assert p.result is not None and finished.result is not None
    assert p.result.best_layout == finished.result.best_layout and p.result.history == finished.result.history
    # asked before each of the 3 batches (the site as it is, then 2 rounds of 4), after each of the 9
    # designs and before pricing the whole BOM: 13 waits, each of 3 looks
    assert len(calls) == 3 * (3 + 9 + 1)


def test_a_site_that_does_not_design_is_a_failed_search_not_an_exception(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*_: Any) -> None:
        raise ValueError("no room for the spines")

    monkeypatch.setattr(opt, "evaluate", refused)
    p = optimizer.Optimisation(session.inputs, session.text, budget=SMALL).run()
    assert p.state == optimizer.FAILED and "no room for the spines" in p.error and p.result is None
    assert "failed:" in text_of(optimizer.view(p))


def test_the_panel_shows_baseline_best_saving_and_what_moved(finished: optimizer.Progress) -> None:
    r = finished.result
    assert r is not None
    text = text_of(optimizer.view(finished))
    assert "Optimising superpod-4su.toml · done · 9/9 designs" in text
    assert f"${r.baseline['optics_usd']:,.0f}" in text and f"${r.best['optics_usd']:,.0f}" in text
    assert f"${finished.saving_usd:,.0f} {finished.saving_pct:.1f} %" in text
    assert "B1/H1" in text and "spines at (6.4, 9.8) m (was the middle row)" in text
    # through the cable plant's row-end panels turning the rows no longer pays (it did with cords alone)
    assert "rows along y" not in text
    assert finished.bom is not None
    was, now = finished.bom
    assert f"whole BOM       ${was['total']:,.0f}" in text and f"${now['total']:,.0f}" in text
    assert "A or enter: accept" in text
    stale = text_of(optimizer.view(finished, optimizer.STALE))
    assert "for another site text" in stale and "A or enter" not in stale
    assert "Accepted" in text_of(optimizer.view(finished, optimizer.ACCEPTED))
    assert optimizer.status_line(finished) == f"optimise 9/9 −{finished.saving_pct:.1f} % done: A accepts"


# ----------------------------------------------------------------------------------------------- Pilot
async def until(pilot: Pilot[Any], check: Any, what: str) -> None:
    """Wait until ``check(app)`` holds (``what``: the failure says what it was waiting for)."""
    try:
        await settled(pilot, 120.0, lambda app: bool(check(app)))
    except AssertionError:
        raise AssertionError(f"waited in vain for {what}") from None


def held_search(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Make every search wait at its gates until the returned event is set: superpod-4su has only 40
    layouts, which a fast machine evaluates under a few slow Pilot key presses (the search had then
    ended before the test could see it running)."""
    go = threading.Event()
    gate = optimizer.Optimisation._gate

    def held(self: optimizer.Optimisation) -> None:
        go.wait(60.0)
        gate(self)

    monkeypatch.setattr(optimizer.Optimisation, "_gate", held)
    return go


@sync
async def test_O_searches_in_the_background_stops_and_A_accepts_one_undoable_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a budget that outlasts the key presses below (Pilot waits up to 2 s a press for a busy process)
    monkeypatch.setattr(optimizer, "budget_for", lambda site: optimizer.Budget(200, 600.0))
    go = held_search(monkeypatch)
    site = copy_site("superpod-4su", tmp_path)
    before = site.read_text(encoding="utf-8")
    app = DCLayoutApp(site)
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("O")
        run = app.optimisation
        assert run is not None and run.running and run.budget.evaluations == 200
        assert app.query_one("#tabs").active == "optimise"  # type: ignore[attr-defined]
        # the keys work while it runs: back to the map, the cursor moves
        cursor = app.map.cursor_m
        await pilot.press("1", "down", "down")
        assert app.query_one("#tabs").active == "map"  # type: ignore[attr-defined]
        assert app.map.cursor_m != cursor and run.running
        go.set()
        await until(pilot, lambda a: run.latest.options, "a first round with a better layout")
        assert "optimise " in shown(app, "#status", 200)
        await pilot.press("O")  # stops it
        await until(pilot, lambda a: run.latest.finished, "the search to stop")
        p = run.latest
        assert p.state == optimizer.STOPPED and p.evaluations < p.budget.evaluations
        await pilot.press("6")
        panel = shown(app, "#optimise-view", 120)
        assert "stopped" in panel and f"{p.saving_pct:.1f} %" in panel and "A or enter" in panel
        await pilot.press("enter")  # in the panel: accept (A anywhere)
        assert app.editor is not None
        assert app.editor.text == opt.optimized_text(before, p.options)
        await designed(pilot)  # the design of the new layout is on screen
        assert p.result is not None
        assert opt.score(app.result.design, optimizer.YEARS) == p.result.best  # type: ignore[union-attr]
        assert "Accepted" in shown(app, "#optimise-view", 120)
        await pilot.press("ctrl+z")
        await designed(pilot)
        assert app.editor.text == before and not app.editor.dirty
        await pilot.press("ctrl+y")
        assert app.editor.text == opt.optimized_text(before, p.options)
        await designed(pilot)


@sync
async def test_A_refuses_a_search_made_for_another_site_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(optimizer, "budget_for", lambda site: SMALL)
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("6")  # before any search: what O does
        assert "O searches where the MDF" in shown(app, "#optimise-view", 120)
        await pilot.press("O")
        run = app.optimisation
        assert run is not None
        await until(pilot, lambda a: run.latest.finished, "the search to end")
        assert run.latest.state == optimizer.DONE and run.latest.options
        await pilot.press("1", "d")  # an edit: rail-optimized -> middle-of-rack
        assert app.editor is not None
        edited = app.editor.text
        await pilot.press("A")
        assert app.editor.text == edited  # not applied
        assert any("another site text" in n.message for n in app._notifications)
        await pilot.press("6")
        assert "for another site text" in shown(app, "#optimise-view", 120)
        assert "optimise" not in shown(app, "#status", 200)  # the status line no longer offers it
        await designed(pilot)
        monkeypatch.setattr(optimizer, "budget_for", lambda site: optimizer.Budget(200, 600.0))
        await pilot.press("O")  # a search of the edited site, then escape in its panel stops it
        again = app.optimisation
        assert again is not run and again is not None and again.text == edited
        await pilot.press("escape")
        await until(pilot, lambda a: again.latest.finished, "the search to stop")
        assert again.latest.state == optimizer.STOPPED and again.latest.evaluations < 200


@sync
async def test_an_edit_stops_a_running_search_and_the_tab_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background search used to go on after an edit made it stale (its best could never be
    accepted, and it took CPU from the edit's design): the edit stops it, the Optimise tab says why."""
    monkeypatch.setattr(optimizer, "budget_for", lambda site: optimizer.Budget(200, 600.0))
    go = held_search(monkeypatch)
    app = DCLayoutApp(copy_site("superpod-4su", tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        await designed(pilot)
        await pilot.press("O")
        run = app.optimisation
        assert run is not None and run.running
        await pilot.press("1", "d")  # an edit: rail-optimized -> middle-of-rack
        go.set()  # the search goes on from its gate, where the edit's stop ends it
        await until(pilot, lambda a: run.latest.finished, "the search to stop after the edit")
        assert run.latest.state == optimizer.STOPPED and run.latest.evaluations < 200
        assert any("the layout search stopped" in n.message for n in app._notifications)
        await pilot.press("6")
        panel = shown(app, "#optimise-view", 120)
        assert "Stopped: the site was edited while it ran" in panel and "stopped" in panel
        await designed(pilot)
        go.clear()
        await pilot.press("O")  # a new search of the edited text is not stopped by nothing
        again = app.optimisation
        assert again is not run and again is not None and again.running
        go.set()
        assert "Stopped: the site was edited" not in shown(app, "#optimise-view", 120)
        await pilot.press("escape")
        await until(pilot, lambda a: again.latest.finished, "the search to stop")
