"""`dclayout tui`: open a site, see the floor, change it, and watch power, optics and cost respond.

The app is a driver of a :class:`layout.tui.session.Session` (the site file being edited with undo and
redo, the design cache, the recent designs): it turns keys and dialogs into edits and shows results.
Every edit goes through the session (which refuses invalid sites) and reruns the design in a thread
worker, so the screen never freezes; when the run finishes, the map, the inspector, the budgets, the BOM,
the cabling and the violations are redrawn from it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Group
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Header, Static, TabbedContent, TabPane, Tree
from textual.worker import Worker, WorkerState

from layout.errors import InputError
from layout.siteedit import (
    AddRow,
    ChangedOnDisk,
    DeleteRow,
    Edit,
    MoveRow,
    SetCluster,
    SetHall,
    SetHallTemplate,
    SetRowTemplate,
    SiteEditor,
)
from layout.tui import optimizer
from layout.tui.find import Found, find
from layout.tui.floor import HallFloor, UserRowBox, floor_plan, hall_floors, with_design_of
from layout.tui.panels import cabling, trace_links
from layout.tui.results import Result, collect_when_idle, settle_gc, young_collections_paused
from layout.tui.runner import Outcome, RunCancelled, RunFinished, run_daemon
from layout.tui.screens.dialogs import ChoiceScreen, MessageScreen, NumberScreen, OpenScreen
from layout.tui.screens.find import FindScreen
from layout.tui.screens.help import HelpScreen, key_rows
from layout.tui.session import EXPORTS, Session, export, locate, snap
from layout.tui.trace import Trace, trace_rack
from layout.tui.widgets.hall_map import MIN_M_PER_COL, HallMap, legend
from layout.tui.widgets.inspector import Inspector
from layout.tui.widgets.optimise import OptimisePanel
from layout.tui.widgets.site_tree import SiteTree
from layout.tui.widgets.steady_footer import SteadyFooter


class OptimiseProgress(Message):
    """The background layout search evaluated a design or ended (posted from its thread)."""

    def __init__(self, progress: optimizer.Progress) -> None:
        super().__init__()
        self.progress = progress


class DesignProgress(Message):
    """A design stage started (posted from the worker thread)."""

    def __init__(self, stage: str) -> None:
        super().__init__()
        self.stage = stage


@dataclass(frozen=True)
class Action:
    name: str  # the action, as run_action() takes it
    title: str  # what the command palette shows
    help: str


# Every action of the app, for the command palette (tests check that each key binding is listed here).
ACTIONS: tuple[Action, ...] = (
    Action("open", "File: open a site…", "Open another site file"),
    Action("save", "File: save", "Write the site file back (comments kept, previous version as .bak)"),
    Action("export", "File: export DXF / PDF / CSV / XLSX…", "Write the current design to outputs/<site>/"),
    Action("keys", "Help: keys", "Show or hide every key binding of the focused widget and the app"),
    Action("quit", "File: quit", "Leave dclayout (asks first if there are unsaved edits)"),
    Action("undo", "Edit: undo", "Undo the last edit"),
    Action("redo", "Edit: redo", "Redo the last undone edit"),
    Action("add_row", "Edit: add a row at the cursor…", "Add a user-placed row of racks at the cursor"),
    Action("delete_row", "Edit: delete the user row at the cursor", "Remove a [[row]] from the site file"),
    Action(
        "move_row", "Edit: move the user row at the cursor", "Arrows move it, enter drops it, escape cancels"
    ),
    Action(
        "row_template", "Edit: rack template of the user row…", "Change the template of the row at the cursor"
    ),
    Action(
        "hall_template", "Edit: rack template of the hall's user rows…", "Change every user row of this hall"
    ),
    Action(
        "cluster_rack",
        "Edit: GPU rack template of the cluster…",
        "cluster.rack: what the auto-placer fills halls with",
    ),
    Action("hall_kw", "Edit: hall max kW per rack…", "The hall's rack power limit"),
    Action("hall_cooling", "Edit: hall cooling…", "air, rear-door or liquid"),
    Action("design_toggle", "Edit: rail-optimized / middle-of-rack", "Switch cluster.design"),
    Action("switch_model", "Edit: fabric switch model…", "cluster.switch"),
    Action("nic", "Edit: NIC (ConnectX-7 / Cedar-7)…", "cluster.nic"),
    Action(
        "find",
        "View: find / go to a rack, row, device or cable…",
        "/ or ctrl+f: type an id, the map goes there",
    ),
    Action(
        "trace", "View: trace the rack's cables", "r: the cables of the rack at the cursor along their trays"
    ),
    Action("map_labels", "Map: row labels: ids / kW per row / none", "l"),
    Action(
        "optimise",
        "Optimise: search for fewer optics / stop",
        "O: where the MDF, spines and SUs stand, which way rows run (dclayout optimize), in the background",
    ),
    Action("accept_layout", "Optimise: accept the best layout", "A: the search's best as one undoable edit"),
    Action("next_hall", "View: next hall", "Show the next hall on the map"),
    Action("prev_hall", "View: previous hall", "Show the previous hall on the map"),
    Action("toggle_tree", "View: show/hide the site tree", "The tree of buildings, halls and rows"),
    Action("tab('map')", "View: map", "The hall map"),
    Action("tab('budgets')", "View: budgets", "Power budgets of site, buildings, halls and racks"),
    Action("tab('violations')", "View: violations", "Design-rule breaches; enter jumps to the place"),
    Action("tab('bom')", "View: bill of materials", "Quantities and prices"),
    Action("tab('cabling')", "View: cabling", "Media mix and the longest links"),
    Action("tab('optimise')", "View: optimise", "The layout search: progress, best so far, what moved"),
    Action("map_zoom(-1)", "Map: zoom in", "+"),
    Action("map_zoom(1)", "Map: zoom out", "-"),
    Action("map_fit", "Map: fit the hall", "0"),
    Action("map_colour", "Map: colour racks by kind / by kW use", "c"),
)


__all__ = ["ACTIONS", "EXPORTS", "DCLayoutApp", "export", "run_app", "snap"]


BOM_COLUMNS = ("category", "part", "qty", "unit", "unit $", "extended $", "item")
WIDE_TABS = ("violations", "bom", "cabling", "optimise")  # shown without the tree and the inspector


class DCLayoutApp(App[None]):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere find it
    TITLE = "dclayout"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]

    BINDINGS = [
        Binding("ctrl+o", "open", "open", show=False),
        Binding("ctrl+s", "save", "save"),
        Binding("q", "quit", "quit", show=False),
        Binding("e", "export", "export", show=False),
        Binding("f1", "keys", "keys"),
        Binding("ctrl+z", "undo", "undo"),
        Binding("ctrl+y", "redo", "redo", show=False),
        Binding("a", "add_row", "add"),
        Binding("x", "delete_row", "del row", show=False),
        Binding("m", "move_row", "move"),
        Binding("t", "row_template", "template", show=False),
        Binding("T", "hall_template", "hall template", show=False),
        Binding("g", "cluster_rack", "GPU rack", show=False),
        Binding("k", "hall_kw", "kW"),
        Binding("o", "hall_cooling", "cooling", show=False),
        Binding("d", "design_toggle", "rail/MoR", show=False),
        Binding("w", "switch_model", "switch", show=False),
        Binding("n", "nic", "NIC", show=False),
        Binding("slash,ctrl+f", "find", "find", key_display="/"),
        Binding("r", "trace", "trace"),
        Binding("O", "optimise", "optimise", show=False),
        Binding("A", "accept_layout", "accept", show=False),
        Binding("right_square_bracket", "next_hall", "next hall", show=False, key_display="]"),
        Binding("left_square_bracket", "prev_hall", "prev hall", show=False, key_display="["),
        Binding("f2", "toggle_tree", "tree", show=False),
        Binding("1", "tab('map')", "map", show=False),
        Binding("2", "tab('budgets')", "budgets", show=False),
        Binding("3", "tab('violations')", "violations", show=False),
        Binding("4", "tab('bom')", "BOM", show=False),
        Binding("5", "tab('cabling')", "cabling", show=False),
        Binding("6", "tab('optimise')", "optimise", show=False),
    ]

    def __init__(self, site: str | Path | None = None, templates_dir: Path | None = None) -> None:
        super().__init__()
        self.site_arg = Path(site) if site else None
        self.templates_dir = templates_dir
        self.session = Session(templates_dir)  # the site, its undo history, the design cache
        self.floors: dict[str, HallFloor] = {}
        self.hall: str | None = None
        self.moving: UserRowBox | None = None
        self.status = ""
        self.result: Result | None = None  # the latest design shown
        self.designing = False  # a design run is in its worker thread
        self.design_pending = False  # the site changed while it ran: run again when it ends
        self.designs_shown = 0  # how many results have been drawn (tests and benchmarks wait on it)
        self.drawn_plan: tuple[object, ...] = ()  # floor_plan() of the inputs the map was last drawn for
        self.tabs_shown: set[str] = set()  # tabs filled with the current result (see show_tab)
        self.gc_settled = False  # settle_gc() has run
        self.garbage_timer: Timer | None = None  # the full collection due when idle (collect_garbage)
        self.idle_collections = 0  # full collections made by collect_garbage (tests)
        self.failure: list[str] = []  # why the design of the site as it is now failed (shown in a panel)
        self.save_after_design: Callable[[], None] | None = None  # ctrl+s waits for the running design
        self._inspected: tuple[str, float, float, int] | None = None  # the cursor cell cursor_followed showed
        self.design_thread: threading.Thread | None = None  # the design run's (layout/tui/runner.py)
        self.quitting = False  # q was pressed: a design run stops at its next stage
        self.trace: Trace | None = None  # the traced rack's cables, of self.result (r)
        self.found_device = -1  # the device the last find went to (highlighted in the elevation)
        self.last_find = ""  # what was typed into the find dialog last
        self.optimisation: optimizer.Optimisation | None = None  # the latest layout search (O)
        self.accepted_text: str | None = None  # the site text accepting its best made (A)
        self.stale_stopped: optimizer.Optimisation | None = None  # the search an edit stopped

    @property
    def editor(self) -> SiteEditor | None:
        """The site file being edited (the session's)."""
        return self.session.editor

    @property
    def recent(self) -> OrderedDict[tuple[Path, str], Result]:
        """The latest designs by (site file, site text), for undo and redo (the session's)."""
        return self.session.recent

    # ----------------------------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield SiteTree(id="tree")
            with TabbedContent(id="tabs", initial="map"):
                with TabPane("Map", id="map"), Vertical():
                    yield HallMap(id="hallmap")
                    yield Static("", id="legend")
                with TabPane("Budgets", id="budgets"), VerticalScroll():
                    yield Static("", id="budgets-view")
                with TabPane("Violations", id="violations"), Vertical():
                    yield DataTable(id="violations-table", cursor_type="row", zebra_stripes=True)
                    yield Static("", id="violation-detail")
                with TabPane("BOM", id="bom"), Vertical():
                    yield Static("", id="bom-total")
                    yield DataTable(id="bom-table", cursor_type="row", zebra_stripes=True)
                with TabPane("Cabling", id="cabling"), VerticalScroll():
                    yield Static("", id="trace-view")
                    yield Static("", id="cabling-view")
                with TabPane("Optimise", id="optimise"):
                    yield OptimisePanel(id="optimise-panel")
            yield Inspector(id="inspector")
        yield Static("", id="design-error", markup=False)
        yield Static("", id="status", markup=False)
        yield SteadyFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#violations-table", DataTable).add_columns("kind", "where", "message")
        # the figures before the long item names: quantity and prices are on screen at 120 columns
        self.query_one("#bom-table", DataTable).add_columns(*BOM_COLUMNS)
        self.query_one(TabbedContent).hide_tab(
            "optimise"
        )  # until O or 6 (the other screens stay as they were)
        self.screen_stack[0].add_class("-no-site")  # until a site is open: the map says what to do
        if self.site_arg is not None:
            self.open_site(self.site_arg)
        else:
            self.action_open()
        self.query_one(HallMap).focus()
        self.map.follow = self.cursor_followed

    @property
    def map(self) -> HallMap:
        return self.query_one(HallMap)

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
            self.status = "saving when the design is done…"
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

    # ------------------------------------------------------------------------------------ edits
    def apply_edit(self, edit: Edit) -> bool:
        """Apply an edit through the editor; problems are shown, never raised."""
        if self.editor is None:
            return False
        try:
            changed = self.session.apply(edit)
        except InputError as e:
            self.notify(
                "\n".join(str(p) for p in e.problems), title="Edit refused", severity="error", timeout=8
            )
            return False
        if changed:
            self.notify(edit.describe(), title="Edit")
            self.inputs_changed()
        return changed

    def action_undo(self) -> None:
        if self.editor is not None and (what := self.session.undo()):
            self.notify(f"undid: {what}")
            self.inputs_changed()

    def action_redo(self) -> None:
        if self.editor is not None and (what := self.session.redo()):
            self.notify(f"redid: {what}")
            self.inputs_changed()

    def _cursor(self) -> tuple[str, float, float] | None:
        where = self.map.cursor_m
        if self.hall is None or where is None:
            return None
        return self.hall, where[0], where[1]

    def _user_row_here(self) -> UserRowBox | None:
        cur = self._cursor()
        if cur is None:
            return None
        box = self.floors[cur[0]].user_row_at(cur[1], cur[2])
        if box is None:
            self.notify(
                "no user-placed row at the cursor (auto-placed rows follow the site; add a row with a)",
                severity="warning",
            )
        return box

    def action_add_row(self) -> None:
        cur = self._cursor()
        if cur is None or self.editor is None:
            return
        hall_key, x, y = cur
        hall = self.session.hall(hall_key)
        inputs = self.editor.inputs

        def got_template(template: str | None) -> None:
            if template is None:
                return

            def got_racks(racks: float | None) -> None:
                if racks is not None:
                    self.apply_edit(AddRow(hall_key, (snap(x), snap(y)), int(racks), template, hall.row_axis))

            self.push_screen(
                NumberScreen(f"Racks in the new row ({template})", hall.max_row_racks, 1, 200, integer=True),
                got_racks,
            )

        self.push_screen(
            ChoiceScreen(
                f"New row in {hall_key} at ({x:.1f}, {y:.1f}) m: rack template",
                self.session.templates(),
                inputs.site.cluster.rack,
            ),
            got_template,
        )

    def action_delete_row(self) -> None:
        box = self._user_row_here()
        if box is not None:
            self.apply_edit(DeleteRow(box.index))

    def action_move_row(self) -> None:
        box = self._user_row_here()
        if box is None:
            return
        self.moving = box
        self.map.set_ghost(box)
        self.notify("move the row with the arrows; enter drops it, escape cancels")

    @on(HallMap.GhostDropped)
    def ghost_dropped(self, event: HallMap.GhostDropped) -> None:
        moving, self.moving = self.moving, None
        self.map.set_ghost(None)
        if moving is not None:
            self.apply_edit(MoveRow(moving.index, (round(event.box.x0, 3), round(event.box.y0, 3))))

    @on(HallMap.GhostCancelled)
    def ghost_cancelled(self) -> None:
        self.moving = None
        self.map.set_ghost(None)

    def _choose(
        self, title: str, options: list[tuple[str, Any]], current: Any, make: Callable[[Any], Edit]
    ) -> None:
        """Ask for one of ``options`` and apply the edit ``make`` builds from it."""

        def chosen(value: Any) -> None:
            if value is not None:
                self.apply_edit(make(value))

        self.push_screen(ChoiceScreen(title, options, current), chosen)

    def action_row_template(self) -> None:
        box = self._user_row_here()
        if box is not None:
            self._choose(
                f"Rack template of user row {box.index + 1}",
                self.session.templates(),
                box.template,
                lambda t: SetRowTemplate(box.index, t),
            )

    def action_hall_template(self) -> None:
        if self.hall is None:
            return
        hall = self.hall
        rows = self.floors[hall].user_rows
        if not rows:
            self.notify(
                f"{hall} has no user-placed rows; g changes the cluster's GPU rack template",
                severity="warning",
            )
            return
        self._choose(
            f"Rack template of every user row in {hall}",
            self.session.templates(),
            rows[0].template,
            lambda t: SetHallTemplate(hall, t),
        )

    def action_cluster_rack(self) -> None:
        if self.editor is not None:
            self._choose(
                "GPU rack template of the cluster (cluster.rack)",
                self.session.templates("gpu"),
                self.editor.inputs.site.cluster.rack,
                lambda t: SetCluster("rack", t),
            )

    def action_hall_kw(self) -> None:
        if self.hall is None:
            return
        hall = self.hall
        current = self.session.hall(hall).max_rack_kw

        def got(v: float | None) -> None:
            if v is not None:
                self.apply_edit(SetHall(hall, "max_rack_kw", float(v)))

        self.push_screen(NumberScreen(f"{hall}: max kW per rack", current, 1, 300), got)

    def action_hall_cooling(self) -> None:
        if self.hall is not None:
            hall = self.hall
            options = [
                ("air", "air"),
                ("rear-door heat exchangers", "rear-door"),
                ("liquid (direct to chip)", "liquid"),
            ]
            self._choose(
                f"{hall}: cooling",
                options,
                self.session.hall(hall).cooling,
                lambda v: SetHall(hall, "cooling", v),
            )

    def action_design_toggle(self) -> None:
        if self.editor is not None:
            now = self.editor.inputs.site.cluster.design
            self.apply_edit(SetCluster("design", "mor" if now == "rail" else "rail"))

    def action_switch_model(self) -> None:
        if self.editor is not None:
            catalog, cluster = self.editor.catalog, self.editor.inputs.site.cluster
            fabric = catalog.fabric_switches(cluster.server, cluster.nic)
            options = [(f"{k} — {catalog.switch[k].name}", k) for k in fabric]
            self._choose(
                "Fabric switch",
                options,
                self.editor.inputs.site.cluster.switch,
                lambda v: SetCluster("switch", v),
            )

    def action_nic(self) -> None:
        if self.editor is not None:
            catalog, cluster = self.editor.catalog, self.editor.inputs.site.cluster
            # only NICs whose backend links the current switch is as fast as (validate's rule,
            # Catalog.fabric_switches): another would make the next design refuse the site
            usable = [
                k for k in sorted(catalog.nic) if cluster.switch in catalog.fabric_switches(cluster.server, k)
            ]
            options = [(f"{k} — {catalog.nic[k].name}", k) for k in usable]
            self._choose(
                f"Server NIC (those the {cluster.switch} can serve; w changes the switch)",
                options,
                cluster.nic,
                lambda v: SetCluster("nic", v),
            )

    # ------------------------------------------------------------------------------------- view
    def halls(self) -> list[str]:
        return list(self.floors)

    def show_hall(self, key: str) -> None:
        if key not in self.floors:
            return
        self.hall = key
        self.moving = None
        self.map.set_ghost(None)
        self.map.show_floor(self.floors[key], keep_view=False)
        self.query_one(SiteTree).show_hall(key)
        self.update_legend()

    def action_next_hall(self) -> None:
        self._step_hall(1)

    def action_prev_hall(self) -> None:
        self._step_hall(-1)

    def _step_hall(self, step: int) -> None:
        halls = self.halls()
        if self.hall in halls:
            self.show_hall(halls[(halls.index(self.hall) + step) % len(halls)])

    def action_keys(self) -> None:
        """Every key on one screen (it fits 80 x 24; Textual's help panel did not)."""
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss(None)
        else:
            titles = {a.name: a.title.split(": ", 1)[-1].rstrip("…") for a in ACTIONS}
            titles |= {
                a.name.removeprefix("map_"): t
                for a in ACTIONS
                if (t := titles[a.name]) and a.name.startswith("map_")
            }
            self.push_screen(HelpScreen(key_rows((self.BINDINGS, HallMap.BINDINGS), titles)))  # type: ignore[arg-type]

    def action_toggle_tree(self) -> None:
        self.screen.toggle_class("-tree-toggled")

    def action_tab(self, tab: str) -> None:
        if tab == "optimise":
            self.query_one(TabbedContent).show_tab(tab)
        self.query_one(TabbedContent).active = tab
        self.focus_tab(tab)

    @on(TabbedContent.TabActivated)
    def tab_activated(self, event: TabbedContent.TabActivated) -> None:
        tab = event.pane.id or ""
        # the tables get the whole width: the tree and the inspector are about the map
        self.screen_stack[0].set_class(tab in WIDE_TABS, "-wide-tab")
        self.show_tab(tab)
        if tab == "optimise":
            self.show_optimisation()
        self.focus_tab(tab)

    def focus_tab(self, tab: str) -> None:
        """Give the keys to what a tab is for: the map, or its table."""
        target = {
            "map": "#hallmap",
            "violations": "#violations-table",
            "bom": "#bom-table",
            "optimise": "#optimise-panel",
        }.get(tab)
        if target:
            self.query_one(target).focus()

    def action_map_zoom(self, step: int) -> None:
        self.map.action_zoom(step)

    def action_map_fit(self) -> None:
        self.map.action_fit()

    def action_map_colour(self) -> None:
        self.map.action_colour()

    def action_map_labels(self) -> None:
        self.map.action_labels()

    # ------------------------------------------------------------------------------ find and trace
    def action_find(self) -> None:
        """Ask for an id (rack, row, hall, building, device, cable) and go there (layout.tui.find)."""
        editor = self.editor
        if editor is None:
            self.notify("no site is open: ctrl+o opens one", severity="warning")
            return

        def resolve(text: str) -> Found | str:
            self.last_find = text
            return find(self.result if self.result is not None else None, editor.inputs, text, self.hall)

        self.push_screen(FindScreen(resolve, self.last_find), self.go_to)

    def go_to(self, found: Found | None) -> None:
        """Show what a find found: the map on it; a device highlighted in its rack's elevation; a cable
        traced on its own."""
        if found is None:
            return
        self.found_device = found.device
        if found.hall:
            self.jump_to(found.hall, found.x_m, found.y_m)
        for _ in range(12):  # zoom in until the cell under the cursor shows that rack, not a neighbour
            if (
                found.rack_no < 0
                or self.map.rack_at_cursor == found.rack_no
                or self.map.m_per_col <= MIN_M_PER_COL
            ):
                break
            self.map.action_zoom(-1)
            self.map.goto(found.x_m, found.y_m)
        if found.kind == "cable" and self.result is not None:
            self.show_trace(trace_rack(self.result, found.rack_no, np.array([found.link])))
        else:
            self.update_inspector()
        self.notify(found.describe(), title="Found")

    def action_trace(self) -> None:
        """Trace the cables of the rack at the cursor (r again on it, or on bare floor: no trace)."""
        rack = self.map.rack_at_cursor
        if self.result is None or self.stale:
            self.notify("the design is being computed; trace when it is done", severity="warning")
            return
        if rack < 0 or (self.trace is not None and self.trace.rack_no == rack and len(self.trace) > 1):
            if self.trace is None:
                self.notify("no rack at the cursor: put the cursor on a rack and press r", severity="warning")
            self.show_trace(None)
            return
        self.show_trace(trace_rack(self.result, rack))

    def show_trace(self, trace: Trace | None) -> None:
        self.trace = trace
        self.map.set_trace(trace)
        self.update_legend()
        self.update_inspector()
        self.tabs_shown.discard("cabling")  # its list of the traced rack's links
        if self.query_one(TabbedContent).active == "cabling":
            self.show_tab("cabling")

    def retrace(self) -> None:
        """After a new design: the trace of the same rack (and cable) in it, or none if it is gone."""
        old, result = self.trace, self.result
        if old is None or result is None:
            return
        racks = result.racks["rack_id"].astype(str).to_numpy()
        hit = np.flatnonzero(racks == old.rack_id)
        trace = None
        if len(hit):
            trace = trace_rack(result, int(hit[0]))
            if len(old) == 1:  # one cable: the link of the same ports, if the new design has it
                same = (
                    (trace.near_port == old.near_port[0])
                    & (trace.far_rack_id == old.far_rack_id[0])
                    & (trace.far_port == old.far_port[0])
                )
                trace = trace_rack(result, int(hit[0]), trace.links[same]) if same.any() else None
        self.show_trace(trace)

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
        self.status = "designing…"
        self.update_title()

        def progress(stage: str) -> None:
            if self.quitting:  # stop at the next stage: the thread then no longer takes the GIL from the exit
                raise RunCancelled(stage)
            self.post_message(DesignProgress(stage))  # thread-safe, and the worker does not wait

        settle, self.gc_settled = not self.gc_settled, True
        session = self.session

        def work() -> Result:
            # with the session's cache; the next edit's document is parsed here, not in the UI thread
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
            self.status = f"designing: {event.stage}…"
            self.update_title()

    @on(Worker.StateChanged)
    def worker_changed(self, event: Worker.StateChanged) -> None:
        if event.state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        if event.worker.group == "export":
            self.export_done(event.worker)

    def design_done(self, worker: Worker[Any] | Outcome) -> None:
        self.designing = False
        if worker.state == WorkerState.ERROR:
            self.status = "design failed: the map shows the last good design (stale)"
            error = worker.error
            if not isinstance(error, InputError):
                self.show_failure([f"the design pipeline failed: {type(error).__name__}: {error}"])
            elif (failed := self.session.failure()) is not None:  # of the site as it is now
                self.show_failure([str(p) for p in failed.problems])
                self.design_pending = False
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

    def show_result(self, result: Result) -> None:
        """Draw a finished design: map, tree, inspector, budgets, violations, BOM and cabling."""
        self.schedule_collection()
        self.result = result
        self.show_failure([])
        self.show_status_of(result)
        self.redraw()
        tab = self.query_one(TabbedContent).get_tab("violations")
        label = f"Violations ({len(result.design.violations)})"
        if str(tab.label) != label:
            tab.label = label
        self.tabs_shown.clear()
        self.retrace()
        self.show_tab(self.query_one(TabbedContent).active)
        self.designs_shown += 1

    def show_tab(self, tab: str) -> None:
        """Fill a tab with the current result, once per result and only when the tab is on screen: the
        tabs behind it cost no layout and no table rebuild in the UI thread while the user edits on the
        map (on the 100k campus the BOM and violations tables alone took ~15 ms a design)."""
        result = self.result
        if result is None or tab in self.tabs_shown:
            return
        self.tabs_shown.add(tab)
        if tab == "budgets":
            self.query_one("#budgets-view", Static).update(result.budgets)
        elif tab == "cabling":
            self.query_one("#cabling-view", Static).update(result.view("cabling", cabling))
            self.query_one("#trace-view", Static).update(
                Group(trace_links(self.trace), Text("")) if self.trace is not None else ""
            )
        elif tab == "violations":
            vt = self.query_one("#violations-table", DataTable)
            vt.clear()
            self.query_one("#violation-detail", Static).update(
                "" if result.design.violations else "no design-rule violations"
            )
            for i, v in enumerate(result.design.violations):
                vt.add_row(v.kind, v.where, v.message, key=str(i))
            if result.design.violations:
                self.show_violation(0)
        elif tab == "bom":
            bt = self.query_one("#bom-table", DataTable)
            bt.clear()
            for r in result.bom.itertuples():
                bt.add_row(
                    r.category,
                    r.part_id,
                    Text(f"{r.qty:,}", justify="right"),
                    r.unit,
                    Text(f"{r.unit_price_usd:,.0f}", justify="right"),
                    Text(f"{r.extended_usd:,.0f}", justify="right"),
                    r.item,
                )
            by = ", ".join(f"{k} ${v / 1e6:,.2f} M" for k, v in result.cost["by_category"].items() if v)
            f = result.design.figures
            self.query_one("#bom-total", Static).update(
                f"[b]{f['cost_total_usd'].line()}[/b] · {f['cost_without_power_chain_usd'].line()} · "
                f"{f['cost_network_usd'].line()} · {by}"
            )

    def show_status_of(self, result: Result) -> None:
        f = result.design.figures  # the figures every output prints (layout/figures.py), terse
        self.status = (
            f"{f['gpus'].text} GPUs · {f['racks'].text} racks · IT {f['it_mw'].text} · "
            f"capital {f['cost_total_usd'].text} · {f['violations'].text} violation(s)"
        )
        self.update_title()

    def update_title(self) -> None:
        if self.editor is None:
            return
        star = " *" if self.editor.dirty else ""
        self.title = self.editor.inputs.site.site.name
        self.sub_title = f"{self.editor.path.name}{star}"
        status = self.status
        if self.optimisation is not None and self.optimise_relation() == optimizer.CURRENT:
            status = f"{optimizer.status_line(self.optimisation.latest)} · {status}"
        # one line of fixed height: no layout pass (a layout of the whole screen costs tens of ms, taken
        # from the design worker through the GIL at every stage's progress message)
        self.query_one("#status", Static).update(status, layout=False)

    def update_legend(self) -> None:
        grid = self.map.grid
        where = f"{self.hall} · 1 col = {grid.m_per_col:.2g} m" if grid and self.hall else ""
        line = legend(self.map.colour_by, where, self.map.present, self.map.trace)
        if self.failure:  # first, so a narrow screen shows it too
            line = Text.assemble(
                ("STALE: design failed, last good design shown", "bold reverse red"), " ", line
            )
        self.query_one("#legend", Static).update(line, layout=False)

    @property
    def stale(self) -> bool:
        """The screen shows no design of the site as it is now (it is being computed)."""
        return self.editor is not None and (self.result is None or self.result.text != self.editor.text)

    def update_inspector(self) -> None:
        if self.editor is None or self.hall is None:
            return
        where = self.map.cursor_m
        stale = self.result is not None and self.stale
        self.query_one(Inspector).show(
            self.editor.inputs,
            self.floors[self.hall],
            where,
            self.map.rack_at_cursor,
            self.result,
            stale,
            self.trace,
            self.found_device,
        )

    def cursor_followed(self, event: HallMap.CursorMoved) -> None:
        """The map's cursor moved (called by the map at once, so the inspector is painted with it)."""
        if self.garbage_timer is not None:  # the due collection waits until the cursor rests too
            self.schedule_collection()
        self.update_inspector()
        self._inspected = (event.hall, event.x_m, event.y_m, event.rack)

    @on(HallMap.CursorMoved)
    def cursor_moved(self) -> None:
        """The posted message: the inspector already shows where the cursor is now, unless the map had
        no one to follow it."""
        m = self.map
        where = m.cursor_m
        if m.floor is None or where is None or self._inspected != (m.floor.key, *where, m.rack_at_cursor):
            self.update_inspector()

    @on(HallMap.Redrawn)
    def map_redrawn(self) -> None:
        self.update_legend()

    @on(HallMap.FocusChanged)
    def map_focus(self, event: HallMap.FocusChanged) -> None:
        """The bar under the map lights up while the map has the keys."""
        self.query_one("#legend").set_class(event.focused, "-focused")

    @on(Tree.NodeSelected)
    def tree_selected(self, event: Tree.NodeSelected[tuple[str, str]]) -> None:
        level, key = event.node.data or ("", "")
        if level == "hall":
            self.show_hall(key)
        elif level == "user_row" and self.editor is not None:
            user_row = self.editor.inputs.site.row[int(key)]
            box = next(b for b in self.floors[user_row.hall].user_rows if b.index == int(key))
            self.jump_to(user_row.hall, (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
        elif level == "row":
            place = self.locate(key)
            if place is not None:
                self.jump_to(*place)
        elif level == "building":
            first = next((h for h in self.floors if h.startswith(f"{key}/")), None)
            if first and first != self.hall:
                self.show_hall(first)

    @on(DataTable.RowHighlighted, "#violations-table")
    def violation_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The whole of the highlighted violation under the table: message, suggestion and figures."""
        if self.result is None or event.row_key.value is None:
            return
        self.show_violation(int(str(event.row_key.value)))

    def show_violation(self, i: int) -> None:
        assert self.result is not None
        v = self.result.design.violations[i]
        lines = [f"{v.kind} at {v.where}", v.message]
        if v.suggestion:
            lines.append(f"suggestion: {v.suggestion}")
        if v.figures:
            lines.append(", ".join(f"{k} = {val}" for k, val in sorted(v.figures.items())))
        lines.append("enter: show it on the map")
        self.query_one("#violation-detail", Static).update(Text("\n".join(lines)))

    @on(DataTable.RowSelected, "#violations-table")
    def violation_selected(self, event: DataTable.RowSelected) -> None:
        if self.result is None:
            return
        v = self.result.design.violations[int(str(event.row_key.value))]
        place = self.locate(v.where, v.figures)
        if place is None:
            self.notify(f"{v.where}: no single place on the map for this violation", severity="warning")
            return
        self.jump_to(*place)

    def jump_to(self, hall: str, x_m: float, y_m: float) -> None:
        """Show the map of ``hall`` with the cursor on (x_m, y_m)."""
        if hall != self.hall:
            self.show_hall(hall)
        self.action_tab("map")
        self.map.goto(x_m, y_m)
        self.map.focus()

    def locate(self, where: str, figures: dict[str, Any] | None = None) -> tuple[str, float, float] | None:
        """The hall and point of a violation's or a tree row's ``where`` (see session.locate)."""
        return locate(self.result, self.floors, where, figures)

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
        if run is None or not run.running or self.optimise_relation() != optimizer.STALE:
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

    # ------------------------------------------------------------------------------- palette
    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for a in ACTIONS:
            yield SystemCommand(a.title, a.help, _runner(self, a.name))


def _runner(app: App[Any], action: str) -> Any:
    async def run() -> None:
        await app.run_action(action)

    return run


def run_app(site: str | Path | None, templates_dir: Path | None = None) -> None:
    """Run the app; when it ends (the terminal restored), leave the process at once: neither a design
    still running (its daemon thread) nor the interpreter freeing the designs kept for undo (1-1.5 s on
    the 100k campus) is waited for."""
    DCLayoutApp(site, templates_dir).run()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
