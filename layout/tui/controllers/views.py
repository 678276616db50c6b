"""Showing a finished design: the map, the tabs, the status line, the title, the legend and the inspector."""

from rich.console import Group
from rich.text import Text
from textual.widgets import DataTable, Static, TabbedContent

from layout.tui import optimizer
from layout.tui.controllers.base import AppBase
from layout.tui.floor import ASPECT
from layout.tui.panels import cabling, trace_links
from layout.tui.results import Result
from layout.tui.screens.compare import CompareScreen
from layout.tui.status import NARROW_COLUMNS, behind, figures_line
from layout.tui.widgets.hall_map import legend
from layout.tui.widgets.inspector import Inspector
from layout.violations import worst_first

STALE_FAILED = "STALE: design failed"  # the legend and the inspector after a failed design


class ViewsController(AppBase):
    def show_result(self, result: Result) -> None:
        """Draw a finished design: map, tree, inspector, budgets, violations, BOM and cabling."""
        self.schedule_collection()
        earlier = self.result
        self.figures_before = (
            earlier.design.figures if earlier is not None and earlier is not result else None
        )
        self.result = result
        if result is not earlier:  # n / N start again from the worst of this design's violations
            self.violation_step = -1
            self.map_note = None
        if self.editor is not None and result.text == self.editor.saved_text:
            self.baseline = result  # the site as saved (or opened): the A of the A/B view
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
            order = worst_first(list(result.design.violations))  # worst first; keys stay the indices
            for i in order:
                v = result.design.violations[i]
                # as Text: a plain string cell is read as markup, and "[[row]] 1 ..." lost its "[[row]]"
                vt.add_row(Text(v.kind), Text(v.where), Text(v.message), key=str(i))
            if order:
                self.show_violation(order[0])
        elif tab == "bom":
            bt = self.query_one("#bom-table", DataTable)
            bt.clear()
            for r in result.bom.itertuples():
                bt.add_row(
                    Text(str(r.category)),
                    Text(str(r.part_id)),
                    Text(f"{r.qty:,}", justify="right"),
                    Text(str(r.unit)),
                    Text(f"{r.unit_price_usd:,.0f}", justify="right"),
                    Text(f"{r.extended_usd:,.0f}", justify="right"),
                    Text(str(r.item)),
                )
            by = ", ".join(f"{k} ${v / 1e6:,.2f} M" for k, v in result.cost["by_category"].items() if v)
            f = result.design.figures
            self.query_one("#bom-total", Static).update(
                f"[b]{f['cost_total_usd'].line()}[/b] · {f['cost_without_power_chain_usd'].line()} · "
                f"{f['cost_network_usd'].line()} · {by}"
            )

    def show_status_of(self, result: Result) -> None:
        # the figures every output prints (layout/figures.py), each with its move since the design before
        compact = self.size.width < NARROW_COLUMNS
        self.status = figures_line(result.design.figures, self.figures_before, compact)
        self.update_title()

    def action_compare_saved(self) -> None:
        """B: the design now beside the site as last saved or opened, every headline figure."""
        if self.editor is None or self.result is None:
            return
        if self.baseline is None:
            self.notify("the site as saved has not been designed in this session", severity="warning")
            return
        title = f"{self.editor.path.name}: as saved (A) and now (B)"
        if self.stale:
            title += " (B is the last design: the newest edit is being designed)"
        self.push_screen(CompareScreen(title, self.baseline.design.figures, self.result.design.figures))

    def show_status_behind(self, what: str) -> None:
        """``what`` is happening; the last design's figures stay on the status line, dimmed."""
        figures = self.result.design.figures if self.result is not None else None
        self.status = behind(what, figures, self.size.width < NARROW_COLUMNS)
        self.update_title()

    def update_title(self) -> None:
        if self.editor is None:
            return
        star = " *" if self.editor.dirty else ""
        self.title = self.editor.inputs.site.site.name
        self.sub_title = f"{self.editor.path.name}{star}"
        status = self.status
        if self.optimisation is not None and self.optimise_relation() == optimizer.CURRENT:
            status = Text.assemble(f"{optimizer.status_line(self.optimisation.latest)} · ", status)
        # one line of fixed height: no layout pass (a layout of the whole screen costs tens of ms, taken
        # from the design worker through the GIL at every stage's progress message)
        self.query_one("#status", Static).update(status, layout=False)

    def update_legend(self) -> None:
        grid = self.map.grid
        where = f"{self.hall} · 1 col = {grid.m_per_col:.2g} m" if grid and self.hall else ""
        line = legend(self.map.colour_by, where, self.map.present, self.map.trace)
        if self.map_note is not None:  # what n / N went to, first
            line = Text.assemble((self.map_note[0], "bold"), " · ", line)
        if self.failure:  # first, so a narrow screen shows it too
            line = Text.assemble((f"{STALE_FAILED}, last good design shown", "bold reverse red"), " ", line)
        self.query_one("#legend", Static).update(line, layout=False)

    @property
    def stale(self) -> bool:
        """The screen shows no design of the site as it is now (it is being computed)."""
        return self.editor is not None and (self.result is None or self.result.text != self.editor.text)

    def stale_note(self) -> str:
        """Why the figures shown are not of the site as it is now, in the words the map's legend uses
        ("": they are)."""
        if self.result is None or not self.stale:
            return ""
        if self.failure:
            return f"{STALE_FAILED}: figures are from the last good design (ctrl+z undoes the edit)"
        return "designing… figures are from before the last edit"

    def update_inspector(self) -> None:
        if self.editor is None or self.hall is None:
            return
        where = self.map.cursor_m
        self.query_one(Inspector).show(
            self.editor.inputs,
            self.floors[self.hall],
            where,
            self.map.rack_at_cursor,
            self.result,
            self.stale_note(),
            self.trace,
            self.found_device,
            reach_m=self.map.m_per_col * ASPECT / 2,
        )
