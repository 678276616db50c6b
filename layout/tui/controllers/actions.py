"""Every action of the app with its title and help, for the command palette and the help screen."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Action:
    name: str  # the action, as run_action() takes it
    title: str  # what the command palette shows
    help: str


# Every action of the app, for the command palette (tests check that each key binding is listed here).
ACTIONS: tuple[Action, ...] = (
    Action("open", "File: open a site…", "Open another site file"),
    Action("save", "File: save", "Write the site file back (comments kept, previous version as .bak)"),
    Action(
        "export",
        "File: export DXF / PDF / tables / labels / DCIM…",
        "Write the current design to outputs/<site>/ beside the site file, or a folder you type",
    ),
    Action("keys", "Help: keys", "Show or hide every key binding of the focused widget and the app"),
    Action("quit", "File: quit", "Leave dclayout (asks first if there are unsaved edits)"),
    Action("undo", "Edit: undo", "Undo the last edit"),
    Action("redo", "Edit: redo", "Redo the last undone edit"),
    Action("add_row", "Edit: add a row at the cursor…", "Add a user-placed row of racks at the cursor"),
    Action("delete_row", "Edit: delete the user row at the cursor", "Remove a [[row]] from the site file"),
    Action(
        "pin_row",
        "Edit: pin the auto-placed row at the cursor as a user row",
        "P: a [[row]] of its racks where they stand, to move (m), delete (x) or retemplate (t)",
    ),
    Action(
        "move_row",
        "Edit: move the user row at the cursor",
        "Arrows or hjkl move it, enter drops it, escape cancels",
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
    Action(
        "cluster_form",
        "Edit: the cluster (GPUs, server, rack, switch, design, NIC, pods, oversubscription)…",
        "C: every cluster decision with its value; what cannot work is greyed out with the reason",
    ),
    Action(
        "compare_saved",
        "View: A/B, the design now beside the site as saved",
        "B: every headline figure as saved (or opened) and now, with the move",
    ),
    Action("hall_kw", "Edit: hall max kW per rack…", "p: the hall's rack power limit"),
    Action("hall_cooling", "Edit: hall cooling…", "air, rear-door or liquid"),
    Action("design_toggle", "Edit: rail-optimized / middle-of-rack", "Switch cluster.design"),
    Action("switch_model", "Edit: fabric switch model…", "cluster.switch"),
    Action("nic", "Edit: NIC (ConnectX-7 / Cedar-7)…", "i: cluster.nic"),
    Action(
        "find",
        "View: find / go to a rack, row, device or cable…",
        "/ or ctrl+f: type an id, the map goes there",
    ),
    Action(
        "trace", "View: trace the rack's cables", "r: the cables of the rack at the cursor along their trays"
    ),
    Action("map_labels", "Map: row labels: ids / kW per row / none", "#"),
    Action(
        "optimise",
        "Optimise: search for fewer optics / stop",
        "O: where the MDF, spines and SUs stand, which way rows run (dclayout optimize), in the background",
    ),
    Action("accept_layout", "Optimise: accept the best layout", "A: the search's best as one undoable edit"),
    Action(
        "next_violation",
        "View: next violation on the map",
        "n: the next design-rule violation, worst first (as the violations tab lists them)",
    ),
    Action("prev_violation", "View: previous violation on the map", "N: the one before, worst first"),
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
