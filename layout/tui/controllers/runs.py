"""Design runs: every change of the inputs starts one in a worker thread; its progress, its end and the garbage it leaves."""

from typing import Any

from textual import on
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from layout.errors import InputError
from layout.tui.controllers.base import AppBase, DesignProgress
from layout.tui.floor import floor_plan, hall_floors, with_design_of
from layout.tui.results import Result, collect_when_idle, settle_gc, young_collections_paused
from layout.tui.runner import Outcome, RunCancelled, RunFinished, run_daemon
from layout.tui.widgets.site_tree import SiteTree


class RunsController(AppBase):
    def inputs_changed(self, new_site: bool = False) -> None:
        """The site text changed (open, edit, undo, redo): redraw what the inputs alone determine, or show
        the design of this very text at once if it is one of the recent ones (undo, redo)."""
        assert self.editor is not None
        self.stop_stale_optimisation()
        failed = self.session.failure()
        self.show_failure([str(p) for p in failed.problems] if failed else [])
        if self.show_known():
            return
        self.start_design()  # first, so the worker computes while the screen is redrawn
        if new_site or floor_plan(self.editor.inputs) != self.drawn_plan:
            self.redraw(keep_view=not new_site)
        # else the map looks the same until the design is done (kW, cooling, cluster edits): no redraw of
        # map, tree and inspector in the UI thread while the worker runs; the status line says designing

    def redraw(self, keep_view: bool = True) -> None:
        """Draw the current inputs with the latest result (which may be from before the last edit)."""
        assert self.editor is not None
        inputs = self.editor.inputs
        self.drawn_plan = floor_plan(inputs)
        current = self.result is not None and self.result.text == self.editor.text
        if current and self.result:
            self.floors = self.result.floors
        else:  # the new floors with the racks of the latest design until the new one is done
            self.floors = with_design_of(hall_floors(inputs), self.result.floors if self.result else {})
        if self.hall not in self.floors:
            self.hall = next(iter(self.floors))
        assert self.hall is not None
        self.query_one(SiteTree).fill(inputs, self.result.tree_rows if self.result else [], self.hall)
        self.map.show_floor(self.floors[self.hall], keep_view=keep_view)
        self.update_legend()
        self.update_title()
        self.update_inspector()

    # ----------------------------------------------------------------------------------- design
    def show_known(self) -> bool:
        """Show the design of the current site text if it is a recent one (no run needed)."""
        known = self.session.known()
        if known is None:
            return False
        self.design_pending = False
        self.show_result(known)
        return True

    def start_design(self) -> None:
        """Rerun the design on the current site in a worker thread (one at a time; the newest edit wins)."""
        if self.editor is None:
            return
        if self.designing:
            self.design_pending = True
            return
        self.designing, self.design_pending = True, False
        inputs, text = self.editor.inputs, self.editor.text
        self.figures_before = None  # the deltas are of the last design against the one before it
        self.show_status_behind("designing…")

        def progress(stage: str) -> None:
            if self.quitting:  # stop at the next stage: the thread then no longer takes the GIL from the exit
                raise RunCancelled(stage)
            self.post_message(DesignProgress(stage))  # thread-safe, and the worker does not wait

        settle, self.gc_settled = not self.gc_settled, True
        session = self.session

        def work() -> Result:
            # with the session's memo; the next edit's document is parsed here, not in the UI thread
            with young_collections_paused(not settle):
                result = session.compute(inputs, text, progress)
            if settle:  # once, when the pipeline's modules are loaded: see settle_gc
                settle_gc()
            return result

        # a daemon thread, not a Textual worker: q never waits for a run (layout/tui/runner.py)
        self.design_thread = run_daemon(
            work, lambda outcome: self.post_message(RunFinished(outcome)), "design"
        )

    @on(RunFinished)
    def run_finished(self, event: RunFinished) -> None:
        self.design_done(event.outcome)

    @on(DesignProgress)
    def design_progress(self, event: DesignProgress) -> None:
        if self.designing and self.stale:
            self.show_status_behind(f"designing: {event.stage}…")

    @on(Worker.StateChanged)
    def worker_changed(self, event: Worker.StateChanged) -> None:
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        if event.worker.group == "export":
            self.export_done(event.worker)

    def design_done(self, worker: Worker[Any] | Outcome) -> None:
        self.designing = False
        if worker.state == WorkerState.ERROR:
            self.show_status_behind("design failed: the map shows the last good design (stale)")
            error = worker.error
            if not isinstance(error, InputError):
                self.show_failure([f"the design pipeline failed: {type(error).__name__}: {error}"])
            elif (failed := self.session.failure()) is not None:  # of the site as it is now
                self.show_failure([str(p) for p in failed.problems])
                self.design_pending = False
            self.update_inspector()  # says what the legend says: the figures are of the last good design
        elif worker.state == WorkerState.SUCCESS and self.editor is not None:
            result = worker.result
            if isinstance(result, Result):
                self.session.remember(result)
            if isinstance(result, Result) and result.text == self.editor.text:
                self.show_result(result)
            else:
                self.design_pending = True
        if self.design_pending and not self.show_known():
            self.start_design()
        else:
            self.update_title()
        if not self.designing and self.save_after_design is not None:
            save, self.save_after_design = self.save_after_design, None
            save()

    def show_failure(self, lines: list[str]) -> None:
        """Show why the design of the site as it is now failed, in full, in a panel under the map, and
        mark the map stale (it shows the last good design); no lines: hide it."""
        self.failure = lines
        panel = self.query_one("#design-error", Static)
        if lines:
            head = (
                "Design failed — the map shows the last good design, not this site (ctrl+z undoes the edit):"
            )
            panel.update("\n".join([head, *lines]))
        panel.set_class(bool(lines), "-shown")
        self.map.set_class(bool(lines), "-stale")
        self.update_legend()

    IDLE_COLLECT_S = 2.0  # a full garbage collection this long after a design is shown, if none runs

    def schedule_collection(self) -> None:
        """The full garbage collection that settle_gc takes out of the design runs, made when the app
        has shown a design and then nothing has run and the map cursor has not moved for IDLE_COLLECT_S
        (45-90 ms on the 100k campus: in the middle of the next edit, automatic ones delayed its
        figures by as much; in a run of cursor moves, one move)."""
        if not self.gc_settled:
            return
        if self.garbage_timer is not None:
            self.garbage_timer.stop()
        self.garbage_timer = self.set_timer(self.IDLE_COLLECT_S, self.collect_garbage)

    def collect_garbage(self) -> None:
        self.garbage_timer = None
        if self.designing:  # later: after the design that runs now is shown
            return
        collect_when_idle()
        self.idle_collections += 1
