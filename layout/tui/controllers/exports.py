"""Exports of the current design (e): the kinds the CLI writes, in a worker."""

from pathlib import Path
from typing import Any

from textual.worker import Worker, WorkerState

from layout.tui.controllers.base import AppBase
from layout.tui.screens.dialogs import ChoiceScreen, FolderScreen
from layout.tui.session import export, export_folder, exports_available

FOLDER = "folder"  # the export dialog's choice of another folder


class ExportsController(AppBase):
    # ------------------------------------------------------------------------------------ export
    def action_export(self) -> None:
        if self.editor is None:
            return
        if self.result is None or self.result.text != self.editor.text:
            self.notify("the design is being recomputed; export when it is done", severity="warning")
            return
        result = self.result
        # beside the site file unless a folder was chosen (absolute: the toast names where files went)
        out_dir = self.export_dir or export_folder(self.editor.path)

        def folder_chosen(folder: Path | None) -> None:
            if folder is not None:
                self.export_dir = folder
            self.action_export()

        def chosen(kind: str | None) -> None:
            if kind == FOLDER:
                self.push_screen(FolderScreen(out_dir), folder_chosen)
            elif kind is not None:
                self.show_status_behind(f"exporting {kind}…")
                self.run_worker(
                    lambda: export(result, kind, out_dir),
                    name=f"export {kind}",
                    group="export",
                    thread=True,
                    exit_on_error=False,
                )

        self.push_screen(
            ChoiceScreen(
                f"Export the design to {out_dir}/",
                [(label, k) for k, label in exports_available()] + [("Another folder…", FOLDER)],
            ),
            chosen,
        )

    def export_done(self, worker: Worker[Any]) -> None:
        if worker.state == WorkerState.SUCCESS:
            paths = list(worker.result or [])
            where = paths[0].parent if paths else ""
            names = ", ".join(p.name for p in paths)
            self.notify(f"wrote {len(paths)} file(s) to {where}/: {names}", title="Export", timeout=8)
        elif worker.state == WorkerState.ERROR:
            self.notify(f"export failed, nothing written: {worker.error}", severity="error", timeout=15)
        if self.result is not None:
            self.show_status_of(self.result)
