"""What the app's controllers share: the state the app holds (set up in ``DCLayoutApp.__init__``), the
messages its worker threads post, and the few methods one controller calls on another.

Each controller (files, edits, navigation, runs, views, optimise, exports) is a subclass of
:class:`AppBase` holding one concern's actions and handlers; ``DCLayoutApp`` is all of them together with
the layout (compose), the key bindings and the command palette. A controller calls another's methods
only through the names declared here, so each one's interface to the rest of the app is visible.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import App
from textual.message import Message
from textual.timer import Timer
from textual.worker import Worker

from layout.figures import Figures
from layout.siteedit import SiteEditor
from layout.tui import optimizer
from layout.tui.floor import HallFloor, UserRowBox
from layout.tui.results import Result
from layout.tui.session import Session
from layout.tui.trace import Trace
from layout.tui.widgets.hall_map import HallMap

BOM_COLUMNS = ("category", "part", "qty", "unit", "unit $", "extended $", "item")
WIDE_TABS = ("violations", "bom", "cabling", "optimise")  # shown without the tree and the inspector


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


class AppBase(App[None]):
    """The app's state and the methods controllers call on one another (defined in the controllers)."""

    site_arg: Path | None
    templates_dir: Path | None
    session: Session  # the site, its undo history, the design memo
    floors: dict[str, HallFloor]
    hall: str | None
    moving: UserRowBox | None
    status: str | Text
    figures_before: Figures | None  # the figures of the design before the one shown (its deltas)
    export_dir: Path | None  # the folder chosen for exports (None: beside the site file)
    baseline: Result | None  # the design of the site as last saved or opened (the A/B view's A)
    result: Result | None  # the latest design shown
    designing: bool  # a design run is in its worker thread
    design_pending: bool  # the site changed while it ran: run again when it ends
    designs_shown: int  # how many results have been drawn (tests and benchmarks wait on it)
    drawn_plan: tuple[object, ...]  # floor_plan() of the inputs the map was last drawn for
    tabs_shown: set[str]  # tabs filled with the current result (see show_tab)
    gc_settled: bool  # settle_gc() has run
    garbage_timer: Timer | None  # the full collection due when idle (collect_garbage)
    idle_collections: int  # full collections made by collect_garbage (tests)
    failure: list[str]  # why the design of the site as it is now failed (shown in a panel)
    save_after_design: Callable[[], None] | None  # ctrl+s waits for the running design
    _inspected: tuple[str, float, float, int] | None  # the cursor cell cursor_followed showed
    design_thread: threading.Thread | None  # the design run's (layout/tui/runner.py)
    quitting: bool  # q was pressed: a design run stops at its next stage
    trace: Trace | None  # the traced rack's cables, of self.result (r)
    found_device: int  # the device the last find went to (highlighted in the elevation)
    last_find: str  # what was typed into the find dialog last
    optimisation: optimizer.Optimisation | None  # the latest layout search (O)
    accepted_text: str | None  # the site text accepting its best made (A)
    stale_stopped: optimizer.Optimisation | None  # the search an edit stopped
    violation_step: int  # where n / N are in the worst-first order of the violations (-1: nowhere)
    # a line the legend leads with (the violation n / N went to) until the cursor is moved: the text, the
    # hall and the map's user_moves it was said at
    map_note: tuple[str, str | None, int] | None

    @property
    def editor(self) -> SiteEditor | None:
        """The site file being edited (the session's)."""
        return self.session.editor

    @property
    def recent(self) -> OrderedDict[tuple[Path, str], Result]:
        """The latest designs by (site file, site text), for undo and redo (the session's)."""
        return self.session.recent

    @property
    def map(self) -> HallMap:
        return self.query_one(HallMap)

    # ---------------------------------------------------- what one controller calls on another
    def action_tab(self, tab: str) -> None:
        raise NotImplementedError  # in its controller

    def drop_optimisation(self) -> None:
        raise NotImplementedError  # in its controller

    def export_done(self, worker: Worker[Any]) -> None:
        raise NotImplementedError  # in its controller

    def inputs_changed(self, new_site: bool = False) -> None:
        raise NotImplementedError  # in its controller

    def optimise_relation(self) -> str:
        raise NotImplementedError  # in its controller

    def redraw(self, keep_view: bool = True) -> None:
        raise NotImplementedError  # in its controller

    def retrace(self) -> None:
        raise NotImplementedError  # in its controller

    def schedule_collection(self) -> None:
        raise NotImplementedError  # in its controller

    def show_failure(self, lines: list[str]) -> None:
        raise NotImplementedError  # in its controller

    def show_optimisation(self) -> None:
        raise NotImplementedError  # in its controller

    def show_result(self, result: Result) -> None:
        raise NotImplementedError  # in its controller

    def show_status_of(self, result: Result) -> None:
        raise NotImplementedError  # in its controller

    def show_status_behind(self, what: str) -> None:
        raise NotImplementedError  # in its controller

    def show_tab(self, tab: str) -> None:
        raise NotImplementedError  # in its controller

    def show_violation(self, i: int) -> None:
        raise NotImplementedError  # in its controller

    @property
    def stale(self) -> bool:
        raise NotImplementedError  # in its controller

    def stop_stale_optimisation(self) -> None:
        raise NotImplementedError  # in its controller

    def update_inspector(self) -> None:
        raise NotImplementedError  # in its controller

    def update_legend(self) -> None:
        raise NotImplementedError  # in its controller

    def update_title(self) -> None:
        raise NotImplementedError  # in its controller
