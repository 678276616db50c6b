"""The TUI without a screen: the site being edited (with undo and redo), the design memo, the recent
designs, and what the screen shows of a design, all driven by plain method calls.

:class:`Session` owns one :class:`layout.memo.Memo` for all its design runs, so an edit that leaves
the cluster (or a building) alone reuses the fabric (or the building's layout); and the designs of the last
few site texts, so undo and redo show a design they have seen without running it again. The Textual app
(layout/tui/app.py) is a driver of a session: it turns keys into edits and shows results. Imports no
Textual: tests drive a session directly (open a site, apply an edit, undo, redo, design, save). The
pipeline modules are imported inside :meth:`Session.compute`, so the first screen does not wait for them.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from layout.errors import InputError
from layout.load import Inputs
from layout.model import Catalog
from layout.model.site import Hall
from layout.siteedit import Edit, SiteEditor
from layout.tui.floor import HallFloor
from layout.tui.results import Result, tree_rows

if TYPE_CHECKING:
    from layout.memo import Memo

RECENT_DESIGNS = 4  # designs kept for undo and redo (about 50 MB each on the 100k campus)

EXPORTS = (
    ("dxf", "DXF drawings: floor plans, power, single-line diagram (millimetres)"),
    ("pdf", "PDF design report with the BOM and single-line diagrams"),
    ("csv", "CSV tables: BOM and links"),
    ("xlsx", "XLSX workbook: BOM, racks, links, power schedule, summary"),
    ("labels", "Labels and pull sheets for the cabling contractor"),
    ("turnup", "Turn-up cable map for the fabric's bring-up"),
    ("dcim", "DCIM import files for NetBox or Nautobot"),
    ("slurm", "Slurm topology files"),
    ("dot", "Fabric graph (Graphviz DOT)"),
    ("ifc", "IFC4 BIM model (needs ifcopenshell)"),
    ("usd", "OpenUSD stage for a digital twin (needs usd-core)"),
)
# an export that needs an optional package, and that package (layout/export/ifc.py, usd.py)
NEEDS = {"ifc": "ifcopenshell", "usd": "pxr"}


def exports_available() -> list[tuple[str, str]]:
    """The exports this machine can write: those whose optional package is installed."""
    import importlib.util

    return [(k, label) for k, label in EXPORTS if k not in NEEDS or importlib.util.find_spec(NEEDS[k])]


def export_folder(site_path: Path) -> Path:
    """Where the TUI exports a site by default: ``outputs/STEM/`` beside the site file, absolute."""
    from layout.files import safe_name

    return (site_path.parent / "outputs" / safe_name(site_path.stem)).resolve()


def holds(template: Any, server: str) -> bool:
    """A rack template has a slot for ``server``."""
    return any(slot.device == server for slot in template.slot)


def compute(
    inputs: Inputs,
    text: str,
    progress: Callable[[str], None] | None = None,
    memo: Memo | None = None,
    earlier: Result | None = None,
) -> Result:
    """Run the whole pipeline (layout.design.run, BOM included) on ``inputs``, and build the views.
    ``memo``: what earlier runs kept (the session's); None: a run that keeps nothing. ``earlier``: the
    result shown before, whose inspector indexes this one takes if it has the same fabric and cabling."""
    from layout import bom as bom_mod
    from layout import design as design_mod
    from layout.tui.floor import hall_floors
    from layout.tui.panels import budgets

    started = time.perf_counter()
    design = design_mod.run(inputs, progress, memo)
    bom = design.bom
    links = design.cabling.links
    result = Result(
        text=text,
        design=design,
        bom=bom,
        cost=bom_mod.totals(bom),
        seconds=time.perf_counter() - started,
        link_rack_a=links["rack_a"].to_numpy(),
        link_rack_b=links["rack_b"].to_numpy(),
        link_length_m=links["length_m"].to_numpy(float),
    )
    if progress is not None:
        progress("views")
    result.floors = hall_floors(inputs, result)
    result.tree_rows = tree_rows(result)
    result.budgets = budgets(result)
    result.take_indexes_of(earlier)
    if len(result.racks):
        _ = result.link_codes, result.device_arrays  # the inspector's arrays, here, not in the UI thread
    return result


class Session:
    """One site being designed interactively (see the module docstring).

    Edits, undo, redo and save go to the :class:`~layout.siteedit.SiteEditor` (which refuses invalid
    sites with an InputError and changes nothing). :meth:`compute` is safe to call from a worker thread
    with a snapshot of the inputs and text while the caller goes on editing; one run at a time, as the
    memo is shared by the runs. Everything else is for the thread that edits.
    """

    def __init__(self, templates_dir: Path | None = None, memo: Memo | None = None) -> None:
        self.templates_dir = templates_dir
        self._memo = memo
        self.editor: SiteEditor | None = None
        # the latest designs by (site file, site text): the design is a pure function of them
        self.recent: OrderedDict[tuple[Path, str], Result] = OrderedDict()
        # the latest site texts whose design was refused (what `dclayout design` would say, exit 2)
        self.failed: OrderedDict[tuple[Path, str], InputError] = OrderedDict()
        # the design remembered last (read by the design worker: one attribute, replaced whole)
        self.latest: Result | None = None

    # ------------------------------------------------------------------------------------- site
    def open(self, path: str | Path) -> SiteEditor:
        """Open a site file (InputError if it does not validate: the session is then unchanged)."""
        editor = SiteEditor(path, self.templates_dir)
        self.editor = editor
        self.recent.clear()
        self.latest = None
        self.failed.clear()
        return editor

    def reload(self) -> SiteEditor:
        """Read the open site file again from disk (the edits and their undo history are dropped)."""
        return self.open(self._editor().path)

    def _editor(self) -> SiteEditor:
        if self.editor is None:
            raise RuntimeError("no site is open")
        return self.editor

    @property
    def inputs(self) -> Inputs:
        return self._editor().inputs

    @property
    def text(self) -> str:
        return self._editor().text

    @property
    def catalog(self) -> Catalog:
        return self._editor().catalog

    def halls(self) -> list[str]:
        """Hall keys ``B1/H1`` in site order."""
        return [f"{b.id}/{h.id}" for b, h in self.inputs.site.halls()]

    def hall(self, key: str) -> Hall:
        return next(h for b, h in self.inputs.site.halls() if f"{b.id}/{h.id}" == key)

    def templates(self, kind: str | None = None) -> list[tuple[str, str]]:
        """(label, id) of the rack templates (of one kind), sorted by id, for a choice."""
        t = self.inputs.templates
        return [(f"{k} — {t[k].name}", k) for k in sorted(t) if kind is None or t[k].kind == kind]

    def gpu_templates(self, server: str | None = None) -> tuple[list[tuple[str, str]], dict[str, str]]:
        """The GPU rack templates for a choice, and why those that cannot hold ``server`` (default: the
        cluster's) cannot."""
        server = server or self.inputs.site.cluster.server
        options = self.templates("gpu")
        t = self.inputs.templates
        return options, {k: f"holds no {server}" for _, k in options if not holds(t[k], server)}

    def server_change(self, server: str) -> tuple[tuple[str, Any], ...] | str:
        """The cluster keys that change with ``server``: the server, a GPU rack template that holds it
        (the current one if it does), a NIC and a fabric switch that serve it (the current ones if they
        do); or why none works."""
        cluster, catalog = self.inputs.site.cluster, self.catalog
        t = self.inputs.templates
        racks = [k for k in sorted(t) if t[k].kind == "gpu" and holds(t[k], server)]
        if not racks:
            return "no GPU rack template holds it"
        nics = [n for n in [cluster.nic, *sorted(catalog.nic)] if catalog.fabric_switches(server, n)]
        if not nics:
            return "no switch serves it"
        nic = nics[0]
        switches = catalog.fabric_switches(server, nic)
        switch = cluster.switch if cluster.switch in switches else switches[0]
        rack = cluster.rack if cluster.rack in racks else racks[0]
        new = {"server": server, "rack": rack, "nic": nic, "switch": switch}
        if cluster.rack_low_density and not holds(t[cluster.rack_low_density], server):
            new["rack_low_density"] = rack
        old = cluster.model_dump()
        return tuple((k, v) for k, v in new.items() if old.get(k) != v or k == "server")

    def mor_refusal(self) -> str:
        """Why middle-of-rack cannot work for the cluster's server ("": it can): no GPU rack template
        of the server has a slot for a leaf switch."""
        server, t = self.inputs.site.cluster.server, self.inputs.templates
        if any(holds(r, server) and any(s.device in ("leaf", "switch") for s in r.slot) for r in t.values()):
            return ""
        return f"no rack template of {server} has room for a leaf switch (a leaf slot)"

    # ------------------------------------------------------------------------------------ edits
    def apply(self, edit: Edit) -> bool:
        """Apply an edit; False if it changed nothing. InputError (and nothing changed) if refused."""
        return self._editor().apply(edit)

    def undo(self) -> str | None:
        """Undo the last edit; what was undone, or None if there was nothing to undo."""
        return self._editor().undo()

    def redo(self) -> str | None:
        return self._editor().redo()

    def save(self, force: bool = False) -> Path | None:
        """Write the site file (the previous version kept as .bak) if it has edits (None: nothing to
        save, nothing written). Refuses, writing nothing, what ``dclayout design`` refuses (InputError
        with its lines: the site is designed first unless this text's design is known), a file changed on
        disk since it was read (:class:`~layout.siteedit.ChangedOnDisk`, unless ``force``) and a folder
        or file that cannot be written (OSError); the edits are kept in every case."""
        editor = self._editor()
        if not editor.dirty:
            return None
        self.check()
        return editor.save(force=force)

    def check(self) -> None:
        """Raise the InputError ``dclayout design`` would give the site as it is now (None if it designs).
        A design of this text seen before answers at once; else it is designed here. A run that fails
        for another reason (a fault of the tool, not of the site) does not keep the edits from being saved."""
        failed = self.failure()
        if failed is not None:
            raise failed
        if self.known() is None:
            try:
                self.design()
            except InputError:
                raise
            except Exception:  # noqa: BLE001 - a fault of the tool, not of the site: the edits are saved
                pass

    def failure(self) -> InputError | None:
        """Why the design of the site as it is now was refused, if it was tried and refused."""
        if self.editor is None:
            return None
        return self.failed.get((self.editor.path, self.editor.text))

    # ----------------------------------------------------------------------------------- design
    @property
    def memo(self) -> Memo:
        """The design memo of every run of this session (made at the first run: the pipeline's modules
        are not imported before)."""
        if self._memo is None:
            from layout.memo import Memo

            self._memo = Memo()
        return self._memo

    def compute(self, inputs: Inputs, text: str, progress: Callable[[str], None] | None = None) -> Result:
        """The design of ``inputs`` (whose site text is ``text``) with the session's memo, and the next
        edit's document parsed (both off the editing thread when called from a worker)."""
        try:
            result = compute(inputs, text, progress, self.memo, self.latest)
        except InputError as e:  # the site validates but does not design: remember it for save()
            self.failed[(inputs.path, text)] = e
            while len(self.failed) > RECENT_DESIGNS:
                self.failed.popitem(last=False)
            raise
        if self.editor is not None and self.editor.inputs.path == inputs.path:
            self.editor.prepare(text)
        return result

    def remember(self, result: Result) -> None:
        """Keep a finished design among the recent ones (when it is of the open site)."""
        if self.editor is None or result.design.inputs.path != self.editor.path:
            return
        self.recent[(result.design.inputs.path, result.text)] = result
        self.latest = result
        while len(self.recent) > RECENT_DESIGNS:
            self.recent.popitem(last=False)

    def known(self) -> Result | None:
        """The recent design of the site as it is now, if there is one (undo, redo: no run needed)."""
        if self.editor is None:
            return None
        key = (self.editor.path, self.editor.text)
        got = self.recent.get(key)
        if got is not None:
            self.recent.move_to_end(key)
        return got

    def design(self, progress: Callable[[str], None] | None = None) -> Result:
        """The design of the site as it is now: a recent one, else computed (and kept among the recent)."""
        got = self.known()
        if got is None:
            got = self.compute(self.inputs, self.text, progress)
            self.remember(got)
        return got


def snap(v_m: float) -> float:
    """A new row's corner: the cursor position rounded down to 10 cm (so the cursor is on the row)."""
    return math.floor(v_m * 10 + 1e-9) / 10


def locate(
    result: Result | None, floors: dict[str, HallFloor], where: str, figures: dict[str, Any] | None = None
) -> tuple[str, float, float] | None:
    """The hall and point of a violation's or a tree row's ``where`` (a rack, a row, a hall or a building:
    the most specific one it names) or of the point in its figures: the scene's rule (Scene.locate), the
    place the drawings mark. ``floors`` is kept for callers; the scene knows the halls."""
    if result is None:
        return None
    return result.scene.locate(where, figures)


def export(result: Result, kind: str, out_dir: Path) -> list[Path]:
    """Write one export of a finished design (runs in a worker thread): layout.export.write, as the CLI,
    with the summary and the scene the screen already has (every file written atomically)."""
    from layout import export as export_mod

    return export_mod.write(result.design, [kind], out_dir, summary=result.summary, scene=result.scene)
