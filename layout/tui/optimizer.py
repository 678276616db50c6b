"""The TUI's layout search: ``dclayout optimize`` of the open site's current text, in the background.

:class:`Optimisation` runs :func:`layout.engine.optimize.search` on a snapshot (site file, text and
validated inputs) in its own daemon thread, on a serial in-process engine (no Dask: every evaluation
runs in that thread, with the search's own :class:`~layout.memo.Memo`, never the session's,
which the design worker uses at the same time). After each evaluation it hands a :class:`Progress` (an
immutable snapshot: evaluations done and planned, the result so far) to a callback; :meth:`stop` ends
the search after the evaluation under way, keeping the best found.

The budget (:func:`budget_for`) is a number of evaluations that grows with the number of halls, and a
time limit that can only end the search earlier; with the same text, seed and evaluations the search
is that of ``dclayout optimize --seed S --evaluations N --batch 4 --workers 1``, the same best.

:func:`accept` makes the best layout one edit of the session (undo brings the text back byte for byte),
and refuses a result made for another site text (:class:`StaleResult`). Imports no Textual.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from layout.engine.cluster import Engine

if TYPE_CHECKING:
    from layout.engine import optimize as opt
    from layout.load import Inputs
    from layout.model import SiteFile
    from layout.tui.session import Session

SEED = 0  # the CLI's default: the TUI's search is the CLI's
BATCH = 4  # candidates per round (the CLI's default)
YEARS = 5.0  # years of optics energy in the figures (the CLI's default; the objective is optics $)
EVALUATIONS_BASE = 16  # evaluations planned: this many plus EVALUATIONS_PER_HALL per hall ...
EVALUATIONS_PER_HALL = 24
EVALUATIONS_MAX = 200  # ... at most (the CLI's default)
BUDGET_S = 180.0  # the search ends after this long even if evaluations are left
YIELD_POLL_S = 0.02  # how often a search waiting for the TUI's design run looks again

CLOCK = time.monotonic  # the panel's seconds (a snapshot test sets a fixed clock)

RUNNING, DONE, STOPPED, TIMED_OUT, FAILED = "running", "done", "stopped", "time budget reached", "failed"


@dataclass(frozen=True)
class Budget:
    evaluations: int
    seconds: float
    seed: int = SEED


def budget_for(site: SiteFile) -> Budget:
    """The TUI's default budget for a site: evaluations by its halls (40 for one hall, 200 for eight)."""
    halls = sum(len(b.hall) for b in site.building)
    return Budget(min(EVALUATIONS_MAX, EVALUATIONS_BASE + EVALUATIONS_PER_HALL * halls), BUDGET_S)


@dataclass(frozen=True)
class Progress:
    """What the panel shows of a search at one moment (made in the search's thread, never changed)."""

    path: Path  # the site file and text the search was made for, and that text's site
    text: str
    site: SiteFile
    budget: Budget
    state: str  # RUNNING, DONE, STOPPED, TIMED_OUT or FAILED
    evaluations: int  # designs evaluated so far (the site as it is first)
    seconds: float
    result: opt.Result | None = None  # the search so far: None until its first round is done
    options: dict[str, Any] = field(default_factory=dict)  # what the best sets (Space.options)
    error: str = ""  # why it failed
    # the whole BOM by category and "total", as it is and of the best (when the search has ended)
    bom: tuple[dict[str, float], dict[str, float]] | None = None

    @property
    def saving_usd(self) -> float:
        if self.result is None:
            return 0.0
        return float(self.result.baseline["optics_usd"] - self.result.best["optics_usd"])

    @property
    def saving_pct(self) -> float:
        if self.result is None or not self.result.baseline["optics_usd"]:
            return 0.0
        return 100.0 * self.saving_usd / float(self.result.baseline["optics_usd"])

    @property
    def finished(self) -> bool:
        return self.state != RUNNING


class Stopped(Exception):
    """Raised between two evaluations to end a search that was asked to stop."""


class _SerialEngine(Engine):
    """The in-process engine (one worker, no Dask, its own task state and so its own design memo) that
    calls ``each()`` as each task ends and ``gate()`` before the first task of a batch and after each
    task (which raises Stopped to end the search, or waits)."""

    def __init__(self, each: Callable[[], None], gate: Callable[[], None]) -> None:
        super().__init__(workers=1)
        self._each, self._gate = each, gate

    def map(self, fn: Any, shared: Any, items: Sequence[Any], done: Any = None) -> list[Any]:
        """Engine.map, with ``each`` and ``gate`` around the tasks."""
        self._gate()

        def one(i: int, r: Any) -> None:
            if done is not None:
                done(i, r)
            self._each()
            self._gate()

        return super().map(fn, shared, items, one)

    def here(self, fn: Any, shared: Any, item: Any) -> Any:
        """``fn(shared, item, state)`` now, with the engine's task state (its design memo), no gate."""
        return fn(shared, item, self._local_state)


def whole_bom(problem: opt.Problem, lay: opt.Layout, state: dict[str, Any]) -> dict[str, float]:
    """The BOM by category (and ``total``) of one layout, with the search's design memo: what the
    objective (transceivers + cables) leaves out, such as the power chain a turned hall needs."""
    import dataclasses

    from layout import bom as bom_mod
    from layout import design as design_mod
    from layout.memo import Memo

    memo = state.setdefault("design_memo", Memo())
    site = problem.space.apply(problem.inputs.site, lay)
    t = bom_mod.totals(design_mod.run(dataclasses.replace(problem.inputs, site=site), memo=memo).bom)
    return {**t["by_category"], "total": t["total"]}


class Optimisation:
    """One search of one site text (module docstring). ``report(progress)`` is called in the search's
    thread after every evaluation and once at the end (post it to the UI; it must not block). While
    ``yield_to()`` is true the search waits between two evaluations (the TUI: while its design of an
    edit runs, so that the edit is not slowed down by a search holding the GIL); that changes when
    evaluations run, never what they find."""

    def __init__(
        self,
        inputs: Inputs,
        text: str,
        report: Callable[[Progress], object] | None = None,
        budget: Budget | None = None,
        yield_to: Callable[[], bool] | None = None,
    ) -> None:
        from layout.engine import optimize as opt

        self.inputs, self.text = inputs, text
        self.budget = budget or budget_for(inputs.site)
        self.problem = opt.Problem(inputs, opt.Space.of(inputs.site), YEARS)
        self._report = report
        self._yield_to = yield_to
        self._stop = threading.Event()
        self._price = True  # price the whole BOM of the best when the search ends
        self._evals = 0
        self._so_far: opt.Result | None = None
        self._bom: tuple[dict[str, float], dict[str, float]] | None = None
        self._started = CLOCK()
        self.thread: threading.Thread | None = None
        self.latest = self._progress(RUNNING)

    def _progress(self, state: str, error: str = "") -> Progress:
        r = self._so_far
        options = self.problem.space.options(self.inputs.site, r.best_layout) if r is not None else {}
        return Progress(
            self.inputs.path,
            self.text,
            self.inputs.site,
            self.budget,
            state,
            self._evals,
            CLOCK() - self._started,
            r,
            options,
            error,
            self._bom,
        )

    def _publish(self, state: str, error: str = "") -> None:
        self.latest = self._progress(state, error)  # one attribute, replaced whole
        if self._report is not None:
            self._report(self.latest)

    def start(self) -> Optimisation:
        """Run the search in a daemon thread (quitting never waits for it)."""
        self.thread = threading.Thread(target=self.run, name="optimise", daemon=True)
        self.thread.start()
        return self

    def _wait(self) -> None:
        """Wait while ``yield_to()`` (unless asked to stop)."""
        while self._yield_to is not None and not self._stop.is_set() and self._yield_to():
            self._stop.wait(YIELD_POLL_S)

    def _gate(self) -> None:
        """Between two evaluations: Stopped if asked to stop; wait while ``yield_to()``."""
        self._wait()
        if self._stop.is_set():
            raise Stopped

    def stop(self, whole_bom: bool = True) -> None:
        """End the search after the evaluation under way (the best so far is kept). ``whole_bom``:
        still price the whole BOM of the best (False: its result is not wanted any more)."""
        self._price = self._price and whole_bom
        self._stop.set()

    @property
    def running(self) -> bool:
        return not self.latest.finished

    def run(self) -> Progress:
        """The search, here (the thread's body; tests call it directly). Returns the final progress."""
        from layout.engine import optimize as opt

        def each() -> None:
            self._evals += 1
            self._publish(RUNNING)

        def tick(so_far: opt.Result) -> None:
            self._so_far = so_far
            self._publish(RUNNING)

        self._started = CLOCK()
        b = self.budget
        try:
            engine = _SerialEngine(each, self._gate)
            with engine:
                try:
                    r = opt.search(
                        self.problem,
                        engine,
                        seed=b.seed,
                        max_evals=b.evaluations,
                        budget_s=b.seconds,
                        batch=BATCH,
                        kind="optics",
                        tick=tick,
                    )
                except Stopped:
                    state = STOPPED
                else:
                    self._so_far = r
                    state = DONE if r.evaluations >= b.evaluations or r.seconds < b.seconds else TIMED_OUT
                base = self.problem.space.baseline(self.inputs.site)
                self._wait()
                if self._price and self._so_far is not None and self._so_far.best_layout != base:
                    self._bom = (
                        engine.here(whole_bom, self.problem, base),
                        engine.here(whole_bom, self.problem, self._so_far.best_layout),
                    )
        except Exception as e:  # noqa: BLE001 - the site does not design, a fault: shown, never raised
            self._publish(FAILED, f"{type(e).__name__}: {e}")
        else:
            self._publish(state)
        return self.latest


class StaleResult(Exception):
    """The search was made for another site text than the one open now: it is not applied."""


def check_current(session: Session, progress: Progress) -> None:
    """StaleResult unless the open site is the file and text the search was made for."""
    editor = session.editor
    if editor is None or editor.path != progress.path or editor.text != progress.text:
        raise StaleResult(
            "the site changed since this search started: its layout was found for another site text "
            "and is not applied (O searches the site as it is now)"
        )


def accept(session: Session, progress: Progress) -> bool:
    """Apply the best layout of ``progress`` to the session as one edit (SetLayout); False if the best
    is the site as it is (nothing to apply). StaleResult if the open site is not the file and text the
    search was made for; the InputError of the editor if the site refuses the edit."""
    from layout.engine import optimize as opt

    check_current(session, progress)
    if progress.result is None or not progress.options:
        return False
    return session.apply(opt.layout_edit(progress.options))


# ------------------------------------------------------------------------------------------- the panel
def _usd(v: float) -> str:
    return f"${v:,.0f}"


def moved_lines(site: SiteFile, options: dict[str, Any]) -> list[tuple[str, str]]:
    """(where, what) of each option the best sets, with what the site has now."""
    out: list[tuple[str, str]] = []
    halls = {f"{b.id}/{h.id}": h for b, h in site.halls()}
    buildings = {b.id: b for b in site.building}
    for where, keys in options.items():
        for key, value in keys.items():
            if key == "mdf_at":
                now = buildings[where].mdf_at if where in buildings else None
                was = f"({now[0]:g}, {now[1]:g}) m" if now is not None else "by the entry"
                out.append((where, f"MDF at ({value[0]:g}, {value[1]:g}) m (was {was})"))
            elif key == "spine_at":
                now = halls[where].spine_at if where in halls else None
                was = f"({now[0]:g}, {now[1]:g}) m" if now is not None else "the middle row"
                out.append((where, f"spines at ({value[0]:g}, {value[1]:g}) m (was {was})"))
            elif key == "row_axis":
                now_axis = halls[where].row_axis if where in halls else "?"
                out.append((where, f"rows along {value} (was {now_axis})"))
            elif key == "su_order":
                was_order = "its own order" if where not in halls or not halls[where].su_order else "another"
                out.append((where, f"{len(value)} SUs in a new order, {value[0]} first (was {was_order})"))
    return out


def status_line(p: Progress) -> str:
    """The search in a few words, for the status line."""
    head = f"optimise {p.evaluations}/{p.budget.evaluations}"
    if p.result is None:
        return f"{head} {p.state}" if p.finished else head
    tail = f" −{p.saving_pct:.1f} %" if p.saving_usd > 0 else " no saving yet"
    return head + tail + ("" if not p.finished else f" {p.state}: A accepts")


CURRENT, ACCEPTED, STALE = "current", "accepted", "stale"  # the open site and the search's text


def relation(p: Progress, path: Path | None, text: str | None, accepted_text: str | None) -> str:
    """CURRENT: the open site is the text the search was made for; ACCEPTED: it is the text accepting
    its best made; STALE: another site or text."""
    if path != p.path:
        return STALE
    if text == p.text:
        return CURRENT
    return ACCEPTED if accepted_text is not None and text == accepted_text else STALE


def view(p: Progress | None, rel: str = CURRENT, stopped_by_edit: bool = False) -> Any:
    """The Optimise tab: the search's state, baseline and best optics $, what moved, the keys.
    ``rel``: how the open site relates to the search (:func:`relation`); ``stopped_by_edit``: an edit
    of the site stopped it (the TUI stops a search as soon as its text is not the site's)."""
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    if p is None:
        return Text.assemble(
            ("Layout optimisation\n\n", "bold"),
            "O searches where the MDF, each hall's spines and SUs stand and which way the rows run, for "
            "the lowest cost of transceivers + cables (what `dclayout optimize` does), in the background: "
            "keep editing meanwhile. Only layouts with no new violation, the same GPUs and every link "
            "routed count. A accepts the best as one edit (ctrl+z undoes it).",
        )
    b = p.budget
    state = {RUNNING: "running", DONE: "done", STOPPED: "stopped", TIMED_OUT: "stopped: time budget reached"}
    head = Text.assemble(
        (f"Optimising {p.path.name}", "bold"),
        f" · {state.get(p.state, p.state)} · {p.evaluations}/{b.evaluations} designs · {p.seconds:.1f} s",
    )
    rule = Text(
        f"objective: transceivers + cables · no new violation · seed {b.seed} · ≤ {b.seconds:.0f} s",
        style="dim",
    )
    parts: list[Any] = [head, rule]
    if stopped_by_edit:
        parts.append(
            Text(
                "Stopped: the site was edited while it ran, so it searched another site text. "
                "O searches the site as it is now.",
                style="bold yellow",
            )
        )
    if p.error:
        parts.append(Text(f"failed: {p.error}", style="bold red"))
    r = p.result
    if r is None:
        if not p.finished:
            parts.append(Text("designing the site as it is and the first candidates…"))
        return Group(*parts)
    t = Table(box=None, padding=(0, 2), show_edge=False)
    t.add_column("")
    t.add_column("as it is", justify="right")
    t.add_column("best so far" if not p.finished else "best", justify="right")
    t.add_column("saved", justify="right")
    base, best = r.baseline, r.best
    for label, key in (("transceivers", "transceivers_usd"), ("cables", "cables_usd")):
        d = base[key] - best[key]
        t.add_row(label, _usd(base[key]), _usd(best[key]), _usd(d) if d else "")
    t.add_row(
        Text("optics $", style="bold"),
        Text(_usd(base["optics_usd"]), style="bold"),
        Text(_usd(best["optics_usd"]), style="bold"),
        Text(f"{_usd(p.saving_usd)} {p.saving_pct:.1f} %", style="bold"),
    )
    modules = sum(base["transceivers"].values()), sum(best["transceivers"].values())
    t.add_row("modules", f"{modules[0]:,}", f"{modules[1]:,}", "")
    t.add_row("cable", f"{base['cable_km']:,.1f} km", f"{best['cable_km']:,.1f} km", "")
    other = ""
    if p.bom is not None:
        was, now = p.bom
        d = was["total"] - now["total"]
        pct = f" {100.0 * d / was['total']:.1f} %" if was["total"] else ""
        t.add_row("whole BOM", _usd(was["total"]), _usd(now["total"]), f"{_usd(d)}{pct}")
        changed = [
            f"{k} {'+' if now[k] > was[k] else '−'}{_usd(abs(now[k] - was[k]))}"
            for k in was
            if k not in ("total", "transceivers", "cables") and abs(now[k] - was[k]) >= 0.5
        ]
        if changed:
            other = "besides the optics: " + ", ".join(changed)
    parts += [Text(""), t]
    if other:
        parts.append(Text(other))
    parts.append(Text(""))
    lines = moved_lines(p.site, p.options)
    if lines:
        moved = Table(box=None, padding=(0, 2), show_header=False, show_edge=False)
        moved.add_column(style="bold")
        moved.add_column()
        for where, what in lines:
            moved.add_row(where, what)
        parts += [Text("What moved in the best layout:", style="bold"), moved]
    else:
        parts.append(Text("Nothing better than the site as it is (yet)."))
    parts.append(Text(""))
    if rel == ACCEPTED:
        parts.append(Text("Accepted: the site has this layout now (ctrl+z undoes it).", style="bold"))
    elif rel == STALE:
        parts.append(
            Text(
                "The site changed since this search started: its result is for another site text and "
                "cannot be accepted. O searches the site as it is now.",
                style="bold yellow",
            )
        )
    elif not p.finished:
        parts.append(Text("O or escape: stop · A: accept the best so far (stops the search)"))
    elif p.options:
        parts.append(Text("A or enter: accept it as one edit (ctrl+z undoes it) · O: search again"))
    else:
        parts.append(Text("O: search again"))
    return Group(*parts)
