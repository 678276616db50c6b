"""Exports of the current design (e): the kinds the CLI writes, in a worker."""

from pathlib import Path
from typing import Any

from textual.worker import Worker, WorkerState

from layout.tui.controllers.base import AppBase
from layout.tui.screens.dialogs import ChoiceScreen
from layout.tui.session import EXPORTS, export


class ExportsController(AppBase):
    # ------------------------------------------------------------------------------------ export
    def action_export(self) -> None:
        if self.editor is None:
            return
        if self.result is None or self.result.text != self.editor.text:
            self.notify("the design is being recomputed; export when it is done", severity="warning")
            return
        result = self.result
        from layout.files import safe_name

        out_dir = Path("outputs") / safe_name(self.editor.inputs.stem)  # a stem of ".." stays in outputs/

        def chosen(kind: str | None) -> None:
            if kind is not None:
                self.status = f"exporting {kind}…"
                self.update_title()
                self.run_worker(
                    lambda: export(result, kind, out_dir),
                    name=f"export {kind}",
                    group="export",
                    thread=True,
                    exit_on_error=False,
                )

        self.push_screen(
            ChoiceScreen(f"Export the design to {out_dir}/", [(label, k) for k, label in EXPORTS]), chosen
        )

    def export_done(self, worker: Worker[Any]) -> None:
        if worker.state == WorkerState.SUCCESS:
            self.notify("wrote " + ", ".join(str(p) for p in worker.result or []), title="Export", timeout=8)
        elif worker.state == WorkerState.ERROR:
            self.notify(f"export failed, nothing written: {worker.error}", severity="error", timeout=15)
        if self.result is not None:
            self.show_status_of(self.result)
