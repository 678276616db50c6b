"""Moving around a design: halls, tabs, the map's zoom and colours, find, trace, the tree and the violations table."""

from typing import Any

import numpy as np
from rich.text import Text
from textual import events, on
from textual.widgets import DataTable, Static, TabbedContent, Tree

from layout.tui.controllers.actions import ACTIONS
from layout.tui.controllers.base import WIDE_TABS, AppBase
from layout.tui.find import Found, find
from layout.tui.screens.find import FindScreen
from layout.tui.screens.help import HelpScreen, key_rows
from layout.tui.session import locate
from layout.tui.trace import Trace, trace_rack
from layout.tui.widgets.hall_map import MIN_M_PER_COL, HallMap
from layout.tui.widgets.site_tree import SiteTree
from layout.violations import worst_first

# the panels that take the keys, by widget id, with the name their border title gives them; the one with
# the focus has FOCUS_MARK before its name, so where the keys go reads without colour
PANELS = {
    "tree": "site",
    "hallmap": "map",
    "inspector": "inspector",
    "violations-table": "violations",
    "bom-table": "BOM",
    "optimise-panel": "optimise",
}
FOCUS_MARK = "▶ "


class NavigationController(AppBase):
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
            self.jump_to(found.hall, found.x_m, found.y_m, rack=found.rack_no)
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

    @on(HallMap.TraceCleared)
    def trace_cleared(self) -> None:
        self.show_trace(None)

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

    def cursor_followed(self, event: HallMap.CursorMoved) -> None:
        """The map's cursor moved (called by the map at once, so the inspector is painted with it)."""
        if self.garbage_timer is not None:  # the due collection waits until the cursor rests too
            self.schedule_collection()
        self.update_inspector()
        self._inspected = (event.hall, event.x_m, event.y_m, event.rack)
        note = self.map_note
        if note is not None and note[1:] != (self.hall, self.map.user_moves):
            self.map_note = None  # said of the place the cursor has left
            self.update_legend()

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

    @on(events.DescendantFocus)
    @on(events.DescendantBlur)
    def mark_focus(self) -> None:
        """The panel with the keys says so in its border title (▶ map), not only in colour."""
        main = self.screen_stack[0] if self.screen_stack else None
        if main is None:
            return
        focused = main.focused
        for widget_id, name in PANELS.items():
            for panel in main.query(f"#{widget_id}"):
                mine = focused is not None and (focused is panel or panel in focused.ancestors)
                title = f"{FOCUS_MARK}{name}" if mine else name
                if panel.border_title != title:
                    panel.border_title = title

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
        self.jump_to(*place, where=v.where)

    # --------------------------------------------------------------------------- n / N: violations
    def action_next_violation(self) -> None:
        self._step_violation(1)

    def action_prev_violation(self) -> None:
        self._step_violation(-1)

    def _step_violation(self, step: int) -> None:
        """Go to the next (``step`` 1) or previous (-1) violation of the design shown, in the violations
        tab's worst-first order, wrapping at the ends: the map's cursor on its place and the legend saying
        ``violation 3 of 12: message``."""
        result = self.result
        if result is None:
            self.notify("no design yet", severity="warning")
            return
        violations = list(result.design.violations)
        if not violations:
            self.violation_step = -1
            self.say_on_map("no design-rule violations")
            return
        order = worst_first(violations)
        if self.violation_step < 0:
            self.violation_step = 0 if step > 0 else len(order) - 1
        else:
            self.violation_step = (self.violation_step + step) % len(order)
        i = order[self.violation_step]
        v = violations[i]
        if "violations" in self.tabs_shown:  # the table's cursor on it too (its detail follows)
            self.query_one("#violations-table", DataTable).move_cursor(row=self.violation_step)
        place = self.locate(v.where, v.figures)
        if place is not None:
            self.jump_to(*place, where=v.where)
        else:
            self.action_tab("map")
        text = f"violation {self.violation_step + 1} of {len(order)}: {v.message}"
        if place is None:
            text += f" ({v.where}: no single place on the map)"
        self.say_on_map(text)

    def say_on_map(self, text: str) -> None:
        """Lead the legend with ``text`` until the cursor is moved (keys, pan, a click; a refit of the map
        as the tab comes back is no move), another hall is shown or a new design."""
        self.map_note = (text, self.hall, self.map.user_moves)
        self.update_legend()

    def jump_to(self, hall: str, x_m: float, y_m: float, where: str = "", rack: int = -1) -> None:
        """Show the map of ``hall`` with the cursor on (x_m, y_m); on a rack (its number ``rack``, or
        the rack ``where`` names), zoomed in until the cell under the cursor shows that rack, not a
        neighbour."""
        if hall != self.hall:
            self.show_hall(hall)
        self.action_tab("map")
        if rack < 0 and where and self.result is not None:
            hit = np.flatnonzero(self.result.design.placement.racks["rack_id"].to_numpy() == where)
            rack = int(hit[0]) if len(hit) else -1
        self.map.goto(x_m, y_m, rack)
        for _ in range(12):
            if rack < 0 or self.map.rack_at_cursor == rack or self.map.m_per_col <= MIN_M_PER_COL:
                break
            self.map.action_zoom(-1)
            self.map.goto(x_m, y_m, rack)
        self.map.focus()

    def locate(self, where: str, figures: dict[str, Any] | None = None) -> tuple[str, float, float] | None:
        """The hall and point of a violation's or a tree row's ``where`` (see session.locate)."""
        return locate(self.result, self.floors, where, figures)
