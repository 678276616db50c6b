"""Edits of the site from keys and dialogs: each goes through the session (which refuses an invalid site) and reruns the design."""

from collections.abc import Callable
from typing import Any

from textual import on

from layout.errors import InputError
from layout.siteedit import (
    AddRow,
    DeleteRow,
    Edit,
    MoveRow,
    SetCluster,
    SetClusterKeys,
    SetHall,
    SetHallTemplate,
    SetRowTemplate,
    pin_row,
)
from layout.tui.controllers.base import AppBase
from layout.tui.floor import UserRowBox
from layout.tui.screens.dialogs import ChoiceScreen, NumberScreen
from layout.tui.session import snap
from layout.tui.widgets.hall_map import HallMap


class EditsController(AppBase):
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

    def action_pin_row(self) -> None:
        """P: the auto-placed row at the cursor becomes a user row ([[row]]), its racks where they stand."""
        cur = self._cursor()
        if cur is None or self.editor is None or len(self.screen_stack) > 1:  # never under a dialog
            return
        hall, x, y = cur
        box = self.floors[hall].user_row_at(x, y)
        if box is not None:
            self.notify(
                f"user row {box.index + 1} is pinned already: m moves it, x deletes it, t changes its template",
                title="Pin refused",
                severity="warning",
            )
            return
        if self.result is None or self.stale:
            self.notify("the design is being computed; pin a row when it is done", severity="warning")
            return
        rack = self.map.rack_at_cursor
        if rack < 0:
            self.notify(
                "no auto-placed row at the cursor: put the cursor on one of its racks and press P",
                severity="warning",
            )
            return
        racks = self.result.design.placement.racks
        try:
            edit = pin_row(racks, str(racks["row"].iat[rack]))
        except InputError as e:
            self.notify(
                "\n".join(f"{p.problem} ({p.allowed})" for p in e.problems),
                title="Pin refused",
                severity="warning",
                timeout=8,
            )
            return
        self.apply_edit(edit)

    def action_move_row(self) -> None:
        box = self._user_row_here()
        if box is None:
            return
        self.moving = box
        self.map.set_ghost(box)
        self.notify("move the row with the arrows or h j k l; enter drops it, escape cancels")

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
        self,
        title: str,
        options: list[tuple[str, Any]],
        current: Any,
        make: Callable[[Any], Edit],
        refused: dict[Any, str] | None = None,
    ) -> None:
        """Ask for one of ``options`` (those in ``refused`` greyed out with their reason) and apply the
        edit ``make`` builds from it."""

        def chosen(value: Any) -> None:
            if value is not None:
                self.apply_edit(make(value))

        self.push_screen(ChoiceScreen(title, options, current, refused), chosen)

    def _number(self, title: str, value: float, lo: float, hi: float, integer: bool, key: str) -> None:
        """Ask for the cluster key ``key``'s number (between ``lo`` and ``hi``) and set it."""

        def got(v: float | None) -> None:
            if v is not None:
                self.apply_edit(SetCluster(key, int(v) if integer else float(v)))

        self.push_screen(NumberScreen(title, value, lo, hi, integer=integer), got)

    # ------------------------------------------------------------------------------ the cluster form
    def action_cluster_form(self) -> None:
        """C: every cluster decision on one list, with its value; enter edits the one highlighted."""
        if self.editor is None:
            return
        c = self.editor.inputs.site.cluster
        pods = f"{c.pod_gpus:,} GPUs" if c.pod_gpus else "0 (one fabric)"
        options = [
            (f"GPUs: {c.gpus:,}", "gpus"),
            (f"server: {c.server}", "server"),
            (f"GPU rack template: {c.rack}", "rack"),
            (f"fabric switch: {c.switch}", "switch"),
            (f"design: {'rail-optimized' if c.design == 'rail' else 'middle-of-rack'}", "design"),
            (f"NIC: {c.nic}", "nic"),
            (f"pod size: {pods}", "pod_gpus"),
            (f"oversubscription: {c.oversubscription:g}:1", "oversubscription"),
        ]
        refused: dict[Any, str] = {}
        if not c.pod_gpus:
            refused["oversubscription"] = "needs pods: set a pod size first"
        if c.design == "rail" and (why := self.session.mor_refusal()):
            refused["design"] = f"middle-of-rack: {why}"
        actions = {
            "gpus": lambda: self._number("Cluster GPUs", c.gpus, 1, 2_000_000, True, "gpus"),
            "server": self.action_cluster_server,
            "rack": self.action_cluster_rack,
            "switch": self.action_switch_model,
            "design": self.action_design_toggle,
            "nic": self.action_nic,
            "pod_gpus": lambda: self._number(
                "GPUs per pod (0: one fabric)", c.pod_gpus, 0, c.gpus, True, "pod_gpus"
            ),
            "oversubscription": lambda: self._number(
                "Oversubscription of the pods (n:1)", c.oversubscription, 1, 64, False, "oversubscription"
            ),
        }

        def chosen(key: str | None) -> None:
            if key is not None:
                actions[key]()

        self.push_screen(ChoiceScreen("Cluster (enter: change it)", options, None, refused), chosen)

    def action_cluster_server(self) -> None:
        if self.editor is None:
            return
        catalog = self.editor.catalog
        options, refused = [], {}
        for k in sorted(catalog.server):
            change = self.session.server_change(k)
            if isinstance(change, str):
                refused[k] = change
                options.append((f"{k} — {catalog.server[k].name}", k))
                continue
            with_ = ", ".join(f"{key} {v}" for key, v in change if key != "server")
            options.append((f"{k} — {catalog.server[k].name}" + (f" (with {with_})" if with_ else ""), k))

        def make(server: str) -> Edit:
            change = self.session.server_change(server)
            assert not isinstance(change, str)
            return SetClusterKeys(change)

        self._choose(
            "GPU server (with the rack, NIC and switch that go with it)",
            options,
            self.editor.inputs.site.cluster.server,
            make,
            refused,
        )

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
            options, refused = self.session.gpu_templates()
            self._choose(
                "GPU rack template of the cluster (cluster.rack)",
                options,
                self.editor.inputs.site.cluster.rack,
                lambda t: SetCluster("rack", t),
                refused,
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
            if now == "rail" and (why := self.session.mor_refusal()):
                self.notify(f"middle-of-rack: {why}", title="Edit refused", severity="warning")
                return
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
