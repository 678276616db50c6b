"""`dclayout tui`: open a site, see the floor, change it, and watch power, optics and cost respond.

The app is a driver of a :class:`layout.tui.session.Session` (the site file being edited with undo and
redo, the design memo, the recent designs): it turns keys and dialogs into edits and shows results.
Every edit goes through the session (which refuses invalid sites) and reruns the design in a thread
worker, so the screen never freezes; when the run finishes, the map, the inspector, the budgets, the BOM,
the cabling and the violations are redrawn from it.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from textual.actions import ActionParseResult
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import DataTable, Header, Static, TabbedContent, TabPane

from layout.tui import optimizer
from layout.tui.controllers.actions import ACTIONS
from layout.tui.controllers.base import BOM_COLUMNS
from layout.tui.controllers.edits import EditsController
from layout.tui.controllers.exports import ExportsController
from layout.tui.controllers.files import FilesController
from layout.tui.controllers.navigation import PANELS, NavigationController
from layout.tui.controllers.optimise import OptimiseController
from layout.tui.controllers.runs import RunsController
from layout.tui.controllers.views import ViewsController
from layout.tui.floor import HallFloor, UserRowBox
from layout.tui.footer import SteadyFooter
from layout.tui.results import Result
from layout.tui.screens.help import HelpScreen
from layout.tui.session import EXPORTS, Session, export, snap
from layout.tui.trace import Trace
from layout.tui.widgets.hall_map import HallMap
from layout.tui.widgets.inspector import Inspector
from layout.tui.widgets.optimise import OptimisePanel
from layout.tui.widgets.site_tree import SiteTree

__all__ = ["ACTIONS", "BOM_COLUMNS", "EXPORTS", "DCLayoutApp", "export", "run_app", "snap"]


class DCLayoutApp(
    FilesController,
    EditsController,
    NavigationController,
    RunsController,
    ViewsController,
    OptimiseController,
    ExportsController,
):
    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere find it

    TITLE = "dclayout"

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]

    BINDINGS = [
        Binding("ctrl+o", "open", "open", show=False, priority=True),
        Binding("ctrl+s", "save", "save"),
        Binding("q", "quit", "quit", show=False),
        Binding("e", "export", "export", show=False),
        Binding("f1,question_mark", "keys", "keys", priority=True),
        Binding("ctrl+z", "undo", "undo"),
        Binding("ctrl+y", "redo", "redo", show=False),
        Binding("a", "add_row", "add", priority=True),
        Binding("x", "delete_row", "del row", show=False),
        Binding("m", "move_row", "move"),
        Binding("P", "pin_row", "pin row", show=False),
        Binding("t", "row_template", "template", show=False, priority=True),
        Binding("T", "hall_template", "hall template", show=False, priority=True),
        Binding("g", "cluster_rack", "GPU rack", show=False, priority=True),
        Binding("C", "cluster_form", "cluster", show=False, priority=True),
        Binding("B", "compare_saved", "A/B", show=False),
        Binding("p", "hall_kw", "kW", priority=True),
        Binding("o", "hall_cooling", "cooling", show=False, priority=True),
        Binding("d", "design_toggle", "rail/MoR", show=False),
        Binding("w", "switch_model", "switch", show=False, priority=True),
        Binding("i", "nic", "NIC", show=False, priority=True),
        Binding("slash,ctrl+f", "find", "find", key_display="/", priority=True),
        Binding("r", "trace", "trace"),
        Binding("n", "next_violation", "violation"),
        Binding("N", "prev_violation", "previous violation", show=False),
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

    # the keys that open a dialog are priority bindings: the app runs them as the key arrives, so the
    # dialog is on screen before the next key of a burst is routed (a burst typed after p went to the
    # map, queued behind the k, and was lost: the dialog then applied a value the user did not type);
    # in a dialog they run nothing (and the key goes on to the dialog as typed text); the footer, which
    # asks check_action, shows the same keys either way
    DIALOG_ACTIONS = frozenset(
        {"open", "keys", "add_row", "row_template", "hall_template", "cluster_rack", "cluster_form", "hall_kw",
         "hall_cooling", "switch_model", "nic", "find"}
    )  # fmt: skip

    # while a row is moved, the app's actions but these do nothing and are not shown: they would edit the
    # site, open a dialog, or change the hall or the tab under the moving row (the map's keys move it)
    WHILE_MOVING = frozenset({"keys", "quit", "toggle_tree", "focus_next", "focus_previous", "help_quit"})
    BLOCKED_WHILE_MOVING = frozenset({a.name.split("(", 1)[0] for a in ACTIONS} | {"command_palette"})

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if getattr(self, "moving", None) is None:
            return True
        return action not in self.BLOCKED_WHILE_MOVING or action in self.WHILE_MOVING

    def footer_hidden(self) -> frozenset[str]:
        """The actions whose keys the footer leaves out in the mode the app is in, though they work
        (SteadyFooter asks): the cursor keys but while a row is moved; add and move while a trace is
        shown (and the kW dialog), to make room for escape: clear trace. What does not work now, check_action hides."""
        if self.moving is not None:
            return frozenset()
        if self.trace is not None:
            return frozenset({"move(0, -1)", "add_row", "move_row", "hall_kw"})
        return frozenset({"move(0, -1)"})

    async def run_action(
        self,
        action: str | ActionParseResult,
        default_namespace: DOMNode | None = None,
        namespaces: Mapping[str, DOMNode] | None = None,
    ) -> bool:
        name = action.split("(", 1)[0].rsplit(".", 1)[-1] if isinstance(action, str) else action[1]
        again = name == "keys" and isinstance(self.screen, HelpScreen)  # F1 / ? again closes the keys
        if name in self.DIALOG_ACTIONS and len(self.screen_stack) > 1 and not again:
            return False
        return await super().run_action(action, default_namespace, namespaces)

    def __init__(self, site: str | Path | None = None, templates_dir: Path | None = None) -> None:
        super().__init__()
        self.site_arg = Path(site) if site else None
        self.templates_dir = templates_dir
        self.session = Session(templates_dir)  # the site, its undo history, the design memo
        self.floors: dict[str, HallFloor] = {}
        self.hall: str | None = None
        self.moving: UserRowBox | None = None
        self.status = ""
        self.figures_before = None
        self.export_dir: Path | None = None
        self.baseline: Result | None = None
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
        self.violation_step = -1  # where n / N are in the worst-first order of the violations (-1: nowhere)
        self.map_note: tuple[str, str | None, int] | None = None  # said under the map (say_on_map)

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
        for widget_id, name in PANELS.items():
            self.query_one(f"#{widget_id}").border_title = name
        self.query_one(HallMap).focus()
        self.map.follow = self.cursor_followed

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
