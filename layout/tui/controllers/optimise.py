"""The layout search from the TUI (O, A): started in the background, its progress shown, its best accepted as one edit."""

from textual import on
from textual.widgets import TabbedContent

from layout.errors import InputError
from layout.tui import optimizer
from layout.tui.controllers.base import AppBase, OptimiseProgress
from layout.tui.widgets.optimise import OptimisePanel


class OptimiseController(AppBase):
    # ---------------------------------------------------------------------------------- optimise
    def action_optimise(self) -> None:
        """O: start a layout search of the site as it is now in the background (layout.tui.optimizer), or
        stop the one running (its best so far is kept)."""
        if self.editor is None:
            self.notify("no site is open: ctrl+o opens one", severity="warning")
            return
        if self.optimisation is not None and self.optimisation.running:
            self.action_stop_optimise()
            return
        failed = self.session.failure()
        if failed is not None:
            self.notify("the site as it is does not design: nothing to optimise", severity="error")
            return
        self.accepted_text = None
        self.optimisation = optimizer.Optimisation(
            self.editor.inputs,
            self.editor.text,
            lambda p: self.post_message(OptimiseProgress(p)),
            yield_to=lambda: self.designing,  # an edit's design goes first
        ).start()
        b = self.optimisation.budget
        self.notify(
            f"searching the layout for fewer optics: {b.evaluations} designs at most, "
            f"{b.seconds:.0f} s at most (O or escape stops, A accepts the best)",
            title="Optimise",
        )
        self.action_tab("optimise")
        self.show_optimisation()

    def action_stop_optimise(self) -> None:
        if self.optimisation is not None and self.optimisation.running:
            self.optimisation.stop()
            self.notify("stopping the layout search after the design under way (the best so far is kept)")

    def drop_optimisation(self) -> None:
        """Another site is open: the search of the last one stops and is forgotten."""
        if self.optimisation is not None:
            self.optimisation.stop(whole_bom=False)
        self.optimisation, self.accepted_text = None, None

    def stop_stale_optimisation(self) -> None:
        """The site text changed: a search still running for the text before is stopped (its best could
        never be accepted for this text, and it would take the worker's CPU for nothing), and the
        Optimise tab says so. A search that made this text (A) or this very text (no change) goes on."""
        run = self.optimisation
        if run is None:
            return
        if not run.running or self.optimise_relation() != optimizer.STALE:
            # a finished search's tab changes too: its best cannot be accepted for a new text (no
            # "A or enter: accept it"), and can again after undo back to its text
            self.show_optimisation()
            return
        run.stop(whole_bom=False)
        self.stale_stopped = run
        self.notify(
            "the site changed: the layout search stopped (it was for the text before); O searches again",
            title="Optimise",
        )
        self.show_optimisation()

    def action_accept_layout(self) -> None:
        """A: the best layout found, as one edit (ctrl+z undoes it); refused if the site changed since."""
        run = self.optimisation
        if run is None:
            self.notify("no layout search yet: O starts one", severity="warning")
            return
        progress = run.latest
        try:
            optimizer.check_current(self.session, progress)
            if progress.result is None:
                self.notify("the search has no result yet: wait for its first round", severity="warning")
                return
            changed = optimizer.accept(self.session, progress)
        except optimizer.StaleResult as e:
            self.notify(str(e), title="Not accepted", severity="error", timeout=10)
            return
        except InputError as e:
            self.notify("\n".join(str(p) for p in e.problems), title="Edit refused", severity="error")
            return
        if not changed:
            self.notify("the search found nothing better than the site as it is: nothing to accept")
            return
        run.stop(whole_bom=False)  # a search still running was for the text before this edit
        assert self.editor is not None
        self.accepted_text = self.editor.text
        self.notify(
            f"accepted the best layout: {progress.saving_pct:.1f} % less on transceivers + cables "
            "(ctrl+z undoes it)",
            title="Edit",
        )
        self.inputs_changed()
        self.show_optimisation()

    def optimise_relation(self) -> str:
        """How the open site relates to the latest search (optimizer.relation)."""
        run = self.optimisation
        if run is None or self.editor is None:
            return optimizer.STALE
        return optimizer.relation(run.latest, self.editor.path, self.editor.text, self.accepted_text)

    @on(OptimiseProgress)
    def optimise_progress(self, event: OptimiseProgress) -> None:
        if self.optimisation is None or event.progress.path != self.optimisation.latest.path:
            return  # of a search dropped since
        if event.progress.finished:
            p = event.progress
            if p.state == optimizer.FAILED:
                self.notify(f"the layout search failed: {p.error}", severity="error", timeout=10)
            elif self.optimise_relation() == optimizer.CURRENT:
                self.notify(optimizer.status_line(p), title="Optimise")
        self.update_title()
        if self.query_one(TabbedContent).active == "optimise":
            self.show_optimisation()

    def show_optimisation(self) -> None:
        run = self.optimisation
        self.query_one(OptimisePanel).show(
            optimizer.view(
                run.latest if run else None,
                self.optimise_relation(),
                stopped_by_edit=run is not None and run is self.stale_stopped,
            )
        )
