"""Opening, saving and reloading the site file, and quitting: every path that could lose an edit asks first."""

from collections.abc import Callable
from pathlib import Path

from layout.errors import InputError
from layout.siteedit import (
    ChangedOnDisk,
)
from layout.tui.controllers.base import AppBase
from layout.tui.screens.dialogs import ChoiceScreen, MessageScreen, OpenScreen


class FilesController(AppBase):
    # ------------------------------------------------------------------------------------- files
    def open_site(self, path: Path) -> bool:
        try:
            self.session.open(path)
        except InputError as e:
            self.push_screen(MessageScreen(f"Cannot open {path}", [str(p) for p in e.problems]))
            return False
        self.screen_stack[0].remove_class("-no-site")
        self.result = None
        self.save_after_design = None
        self.drop_optimisation()
        self.trace = None
        self.map.set_trace(None)
        self.show_failure([])
        self.hall = self.session.halls()[0]
        self.moving = None
        self.map.set_ghost(None)
        self.inputs_changed(new_site=True)
        return True

    def action_open(self) -> None:
        self.unless_unsaved("Open another site", self.ask_open)

    def unless_unsaved(self, what: str, then: Callable[[], None]) -> None:
        """Run ``then`` now, or, with unsaved edits, after asking: save first, drop them, or cancel."""
        if self.editor is None or not self.editor.dirty:
            then()
            return

        def answer(choice: str | None) -> None:
            if choice == "save":
                self.save_site(then)
            elif choice == "discard":
                then()

        self.push_screen(
            ChoiceScreen(
                f"Unsaved edits in {self.editor.path.name}",
                [
                    ("Cancel (keep editing)", None),
                    (f"Save, then {what.lower()}", "save"),
                    (f"{what} without saving (the edits are lost)", "discard"),
                ],
                None,
            ),
            answer,
        )

    def ask_open(self) -> None:
        folder = (
            self.editor.path.parent
            if self.editor
            else (Path("sites") if Path("sites").is_dir() else Path("."))
        )

        def opened(path: Path | None) -> None:
            if path is not None:
                self.open_site(path)

        self.push_screen(OpenScreen(folder.resolve()), opened)

    def action_save(self) -> None:
        self.save_site()

    def save_site(self, then: Callable[[], None] | None = None, force: bool = False) -> None:
        """Save the site (see Session.save), then run ``then``. What cannot be saved is shown in a dialog
        and the edits are kept: a site that does not design, a file changed on disk (overwrite, reload or
        cancel: cancel first), a folder that cannot be written. Waits for a design of the current text
        that is running (save checks it designs)."""
        editor = self.editor
        if editor is None:
            return
        if editor.dirty and self.designing and self.session.known() is None and not self.session.failure():
            self.save_after_design = lambda: self.save_site(then, force)
            self.show_status_behind("saving when the design is done…")
            self.update_title()
            return
        try:
            path = self.session.save(force=force)
        except InputError as e:
            self.show_failure([str(p) for p in e.problems])
            self.push_screen(
                MessageScreen(
                    f"Not saved: {editor.path.name} would not design",
                    [
                        *(str(p) for p in e.problems),
                        "",
                        "Nothing was written; your edits are kept (ctrl+z undoes).",
                    ],
                )
            )
            return
        except ChangedOnDisk as e:
            self.ask_changed_on_disk(e, then)
            return
        except OSError as e:
            self.push_screen(
                MessageScreen(
                    f"Not saved: cannot write {editor.path.name}",
                    [
                        f"{e.filename or editor.path}: {e.strerror or type(e).__name__}",
                        "",
                        "Nothing was written; your edits are kept. Make the folder writable and save again.",
                    ],
                )
            )
            return
        except Exception as e:  # noqa: BLE001 - never lose the app (and the edits) to a save
            self.push_screen(
                MessageScreen(
                    f"Not saved: {editor.path.name}",
                    [f"{type(e).__name__}: {e}", "", "Nothing was written; your edits are kept."],
                )
            )
            return
        if path is None:
            self.notify("no edits to save: nothing written")
        else:
            self.notify(f"saved {path.name} (previous version: {editor.backup_path.name})")
        if self.result is not None and self.result.text == editor.saved_text:
            self.baseline = self.result  # the A/B view compares with what was just saved
        self.update_title()
        if then is not None:
            then()

    def ask_changed_on_disk(self, e: ChangedOnDisk, then: Callable[[], None] | None) -> None:
        def answer(choice: str | None) -> None:
            if choice == "overwrite":
                self.save_site(then, force=True)
            elif choice == "reload":
                self.reload_site()

        self.push_screen(
            ChoiceScreen(
                f"{e.path.name}: {e.problem}. Saving would overwrite that change.",
                [
                    ("Cancel (nothing written, keep editing)", None),
                    ("Overwrite the file with my edits", "overwrite"),
                    ("Reload the file from disk (my edits are dropped)", "reload"),
                ],
                None,
            ),
            answer,
        )

    def reload_site(self) -> None:
        if self.editor is not None:
            self.open_site(self.editor.path)

    async def action_quit(self) -> None:
        self.unless_unsaved("Quit", self.quit_now)

    def quit_now(self) -> None:
        """Leave: a design in progress stops at its next stage and is not waited for (runner.py)."""
        self.quitting = True
        if self.optimisation is not None:
            self.optimisation.stop(whole_bom=False)
        self.exit()
