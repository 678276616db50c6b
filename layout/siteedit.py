"""Edit a site file the way a person would: change a few keys, keep every comment and the layout.

The file is held as a tomlkit document. Each edit is a small frozen dataclass that changes the
document in place; :class:`SiteEditor` applies it to a copy, validates the result with the same code
as ``dclayout validate`` (so an edit that would make the site invalid is refused and changes nothing),
and keeps the text of every earlier version for undo/redo. :meth:`SiteEditor.save` writes atomically,
keeps the previous file as ``NAME.toml.bak`` and refuses to write a site that does not validate.

The editor remembers what it read (a hash of the bytes and their mtime): a save refuses to overwrite a
file changed on disk since (:class:`ChangedOnDisk`) unless told to, a save with no edits writes nothing,
a CRLF file stays CRLF and a symlinked site file is written through its link (the link is kept).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import tomlkit
from tomlkit.items import AoT, Table

from layout.errors import InputError, Problem
from layout.files import write_bytes
from layout.load import Inputs, load_site, parse_toml, site_from_data
from layout.load.toml import read_input_bytes

HALL_KEYS = ("max_rack_kw", "cooling", "it_mw")
CLUSTER_KEYS = (
    "design", "switch", "nic", "rack", "rack_low_density", "gpus", "server", "pod_gpus", "oversubscription",
)  # fmt: skip


# ------------------------------------------------------------------------------------------- helpers
def _refused(key: str, problem: str, allowed: str) -> InputError:
    """The error of an edit that cannot be made (the file is named ``(edit)``: it is not on disk yet)."""
    return InputError([Problem("(edit)", key, problem, allowed)])


def _halls(doc: tomlkit.TOMLDocument) -> Iterator[tuple[str, Table]]:
    for b in doc.get("building", []):
        for h in b.get("hall", []):
            yield f"{b['id']}/{h['id']}", h


def _hall(doc: tomlkit.TOMLDocument, hall: str) -> Table:
    for key, h in _halls(doc):
        if key == hall:
            return h
    known = ", ".join(k for k, _ in _halls(doc))
    raise _refused("hall", f"unknown hall {hall!r}", known)


def _rows(doc: tomlkit.TOMLDocument) -> AoT:
    rows = doc.get("row")
    if not isinstance(rows, AoT) or len(rows) == 0:
        raise _refused("row", "the site has no user-placed rows", "add a row first")
    return rows


def _row(doc: tomlkit.TOMLDocument, index: int) -> Table:
    rows = _rows(doc)
    if not 0 <= index < len(rows):
        raise _refused(f"row[{index}]", "no such user row", f"0..{len(rows) - 1}")
    row: Table = rows[index]
    return row


def _number(v: float) -> float:
    """Metres to the millimetre."""
    return round(float(v), 3)


IDS_PER_LINE = 8  # an SU order longer than this is written over several lines, this many ids a line


def _id_list(ids: list[str]) -> Any:
    """A TOML array of ids: on one line, or ``IDS_PER_LINE`` a line under its key (a hall's keys are
    indented two spaces in the shipped sites, so its lines four)."""
    arr = tomlkit.array()
    if len(ids) <= IDS_PER_LINE:
        arr.extend(ids)
        return arr
    for i in range(0, len(ids), IDS_PER_LINE):
        arr.add_line(*ids[i : i + IDS_PER_LINE], indent="    ")
    arr.add_line(indent="  ")
    return arr


def _point(p: tuple[float, float]) -> Any:
    arr = tomlkit.array()
    arr.extend([_number(p[0]), _number(p[1])])
    return arr


# --------------------------------------------------------------------------------------------- edits
@dataclass(frozen=True)
class AddRow:
    """Append a user-placed row (``[[row]]``): the placer keeps it exactly and fills around it."""

    hall: str
    origin: tuple[float, float]
    racks: int
    template: str
    axis: str = "x"

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        _hall(doc, self.hall)
        t = tomlkit.table()
        t["hall"] = self.hall
        t["origin"] = _point(self.origin)
        t["axis"] = self.axis
        t["racks"] = int(self.racks)
        t["template"] = self.template
        _append_row(doc, t)

    def describe(self) -> str:
        return f"add a row of {self.racks} x {self.template} in {self.hall} at ({self.origin[0]:g}, {self.origin[1]:g})"


def _append_row(doc: tomlkit.TOMLDocument, t: Table) -> None:
    """Add ``t`` as the last ``[[row]]``, a blank line before it."""
    rows = doc.get("row")
    if isinstance(rows, AoT) and len(rows):
        last = rows[len(rows) - 1]
        if not last.as_string().endswith("\n\n"):
            t.trivia.indent = "\n"
        rows.append(t)
    else:
        aot = tomlkit.aot()
        aot.append(t)
        doc["row"] = aot


def _exact(v: float) -> float:
    """Metres to the micrometre: where a placed rack stands (the racks table's precision)."""
    return round(float(v), 6)


@dataclass(frozen=True)
class PinRow:
    """Pin an auto-placed row as a user row (``[[row]]``): the same racks where the placer put them, so
    it can be moved, deleted and given another template like any user row. ``origin``: the row's corner
    of smallest x and y; ``front``: "+" or "-" (the placer's rows face both ways); ``templates``: each
    rack's, in order along ``axis`` (written as ``template`` when they are all the same). ``row``: the
    row's id in the design, for the edit's description."""

    hall: str
    origin: tuple[float, float]
    axis: str
    front: str
    templates: tuple[str, ...]
    row: str = ""

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        _hall(doc, self.hall)
        if not self.templates:
            raise _refused("row.templates", "a row of no racks", "one template per rack")
        t = tomlkit.table()
        t["hall"] = self.hall
        origin = tomlkit.array()
        origin.extend([_exact(self.origin[0]), _exact(self.origin[1])])
        t["origin"] = origin
        t["axis"] = self.axis
        t["front"] = self.front
        t["racks"] = len(self.templates)
        if len(set(self.templates)) == 1:
            t["template"] = self.templates[0]
        else:
            arr = tomlkit.array()
            arr.extend(self.templates)
            t["templates"] = arr
        _append_row(doc, t)

    def describe(self) -> str:
        what = self.row or f"the row at ({self.origin[0]:g}, {self.origin[1]:g})"
        return f"pin {what} ({len(self.templates)} racks) as a user row"


PIN_TOLERANCE_M = 1e-5  # racks side by side: each starts where the one before ends, to 0.01 mm


def pin_row(racks: pd.DataFrame, row: str) -> PinRow:
    """The edit that pins the design's row ``row`` (a racks table's ``row`` id) as a user row: its racks
    in order along the row, where they stand. Refused (InputError) when it is a user row already, or
    its racks are not side by side (a gap: a column, a keep-out) or do not align their fronts."""
    mine = racks[racks["row"] == row]
    if not len(mine):
        raise _refused("row", f"no row {row} in the design", "a row of the design's racks table")
    if bool(mine["user_row"].any()):
        raise _refused(
            "row", f"{row} is a user row already", "m moves it, x deletes it, t changes its template"
        )
    rot = mine["rotation_deg"].to_numpy(float)
    if len(set(rot.tolist())) != 1:
        raise _refused("row", f"the racks of {row} face different ways", "a row whose racks face one way")
    along_x = float(rot[0]) in (0.0, 180.0)
    front = "+" if float(rot[0]) in (0.0, 270.0) else "-"
    a = mine["x_m" if along_x else "y_m"].to_numpy(float)
    c = mine["y_m" if along_x else "x_m"].to_numpy(float)
    w = mine["width_m"].to_numpy(float)
    d = mine["depth_m"].to_numpy(float)
    order = np.argsort(a, kind="stable")
    a, c, w, d = a[order], c[order], w[order], d[order]
    ids = [str(t) for t in mine["template"].to_numpy(object)[order]]
    starts = a - w / 2
    gaps = starts[1:] - (starts[:-1] + w[:-1])
    if len(gaps) and float(np.abs(gaps).max()) > PIN_TOLERANCE_M:
        k = int(np.argmax(np.abs(gaps)))
        raise _refused(
            "row",
            f"the racks of {row} are not side by side: {abs(float(gaps[k])):.3f} m between its racks "
            f"{k + 1} and {k + 2} (a column or a keep-out?)",
            "a row of contiguous racks; add a user row with a instead",
        )
    fronts = c + d / 2 if front == "+" else c - d / 2
    if float(np.ptp(fronts)) > PIN_TOLERANCE_M:
        raise _refused("row", f"the racks of {row} do not align their fronts", "a row whose fronts align")
    depth = float(d.max())
    across = float(fronts[0]) - depth if front == "+" else float(fronts[0])
    origin = (float(starts[0]), across) if along_x else (across, float(starts[0]))
    hall = str(mine["hall"].iat[0])
    return PinRow(hall, origin, "x" if along_x else "y", front, tuple(ids), row)


@dataclass(frozen=True)
class DeleteRow:
    index: int

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        _row(doc, self.index)
        rows = _rows(doc)
        del rows[self.index]
        if len(rows) == 0:
            del doc["row"]

    def describe(self) -> str:
        return f"delete user row {self.index + 1}"


@dataclass(frozen=True)
class MoveRow:
    index: int
    origin: tuple[float, float]

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        _row(doc, self.index)["origin"] = _point(self.origin)

    def describe(self) -> str:
        return f"move user row {self.index + 1} to ({self.origin[0]:g}, {self.origin[1]:g})"


def _set_template(row: Table, template: str) -> None:
    """Every rack of a row on ``template``: a row of per-rack ``templates`` loses them."""
    if "templates" in row:
        del row["templates"]
    row["template"] = template


@dataclass(frozen=True)
class SetRowTemplate:
    index: int
    template: str

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        _set_template(_row(doc, self.index), self.template)

    def describe(self) -> str:
        return f"user row {self.index + 1}: template {self.template}"


@dataclass(frozen=True)
class SetHallTemplate:
    """Give every user-placed row of a hall the same rack template."""

    hall: str
    template: str

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        _hall(doc, self.hall)
        rows = [r for r in doc.get("row", []) if r.get("hall") == self.hall]
        if not rows:
            raise _refused(
                "row",
                f"hall {self.hall} has no user-placed rows",
                "add a row to the hall, or change cluster.rack for the auto-placed racks",
            )
        for r in rows:
            _set_template(r, self.template)

    def describe(self) -> str:
        return f"{self.hall}: user rows on template {self.template}"


@dataclass(frozen=True)
class SetHall:
    """Change one hall key: ``max_rack_kw``, ``cooling`` or ``it_mw``."""

    hall: str
    key: str
    value: Any

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        if self.key not in HALL_KEYS:
            raise _refused(f"hall.{self.key}", "not an editable hall key", ", ".join(HALL_KEYS))
        _hall(doc, self.hall)[self.key] = self.value

    def describe(self) -> str:
        return f"{self.hall}: {self.key} = {self.value}"


@dataclass(frozen=True)
class SetCluster:
    """Change one cluster key (:data:`CLUSTER_KEYS`): ``design`` (rail/mor), ``switch``, ``nic``, ``rack``,
    ``rack_low_density``, ``gpus``, ``server``, ``pod_gpus``, ``oversubscription``."""

    key: str
    value: Any

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        if self.key not in CLUSTER_KEYS:
            raise _refused(f"cluster.{self.key}", "not an editable cluster key", ", ".join(CLUSTER_KEYS))
        doc["cluster"][self.key] = self.value  # type: ignore[index]

    def describe(self) -> str:
        return f"cluster: {self.key} = {self.value}"


@dataclass(frozen=True)
class SetClusterKeys:
    """Change several cluster keys in one edit (one undo step): a server with the rack, NIC and switch
    that go with it."""

    updates: tuple[tuple[str, Any], ...]

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        for key, value in self.updates:
            SetCluster(key, value).apply(doc)

    def describe(self) -> str:
        return "cluster: " + ", ".join(f"{k} = {v}" for k, v in self.updates)


@dataclass(frozen=True)
class SetLayout:
    """Set the placement options a layout search chose (``dclayout optimize``): per building id
    ``mdf_at``, per hall key ``spine_at``, ``row_axis`` and ``su_order``, as ``((where, key, value),
    ...)``; a point is a pair of metres, an SU order a sequence of SU ids. Keys keep their place; a new key
    goes after its building's or hall's own keys."""

    options: tuple[tuple[str, str, Any], ...]

    KEYS = ("mdf_at", "spine_at", "row_axis", "su_order")

    def apply(self, doc: tomlkit.TOMLDocument) -> None:
        by: dict[str, Any] = {}
        for b in doc.get("building", []):
            by[str(b["id"])] = b
            for h in b.get("hall", []):
                by[f"{b['id']}/{h['id']}"] = h
        for where, key, value in self.options:
            if key not in self.KEYS:
                raise _refused(key, "not a placement option", ", ".join(self.KEYS))
            if where not in by:
                raise _refused(key, f"unknown building or hall {where!r}", ", ".join(by))
            if key == "su_order":
                by[where][key] = _id_list(list(value))
            elif isinstance(value, list | tuple):
                by[where][key] = _point((value[0], value[1]))
            else:
                by[where][key] = value

    def describe(self) -> str:
        return f"optimised layout: {len(self.options)} placement option(s)"


Edit = (
    AddRow
    | PinRow
    | DeleteRow
    | MoveRow
    | SetRowTemplate
    | SetHallTemplate
    | SetHall
    | SetCluster
    | SetClusterKeys
    | SetLayout
)
# edits that change values where they stand (and add a key at most, which adds a line)
VALUE_EDITS = (MoveRow, SetRowTemplate, SetHallTemplate, SetHall, SetCluster, SetClusterKeys)


# -------------------------------------------------------------------------------------------- editor
@dataclass(frozen=True)
class Stamp:
    """What a site file held when it was read or written: the SHA-256 of its bytes and its mtime."""

    sha256: str
    mtime_ns: int

    @classmethod
    def of(cls, data: bytes, path: Path) -> Stamp:
        return cls(hashlib.sha256(data).hexdigest(), path.stat().st_mtime_ns)


class ChangedOnDisk(Exception):
    """The site file on disk is not what the editor read or last wrote (an editor, ``git pull``):
    saving would overwrite that change. ``save(force=True)`` overwrites it, ``reload`` takes it."""

    def __init__(self, path: Path, problem: str):
        self.path, self.problem = path, problem
        super().__init__(f"{path}: {problem}")


def _newline(raw: bytes) -> str:
    """The line ending of a file: CRLF when every line ends so, else LF."""
    lf = raw.count(b"\n")
    return "\r\n" if lf and raw.count(b"\r\n") == lf else "\n"


class SiteEditor:
    """An open site file: its current text, validated inputs, and undo/redo stacks of earlier texts."""

    def __init__(self, path: str | Path, templates_dir: Path | None = None):
        self.path = Path(path)
        for _ in range(3):  # the bytes read are those validated (unless the file keeps changing)
            raw = self._read()
            self.inputs = load_site(self.path, templates_dir)  # every problem of the file as InputError
            again = self._read()
            if again == raw:
                break
            raw = again
        self.stamp = Stamp.of(raw, self.path)
        self.newline = _newline(raw)
        self.templates_dir = self.inputs.templates_dir
        self.catalog = self.inputs.catalog
        self.templates = self.inputs.templates
        self.text = raw.decode("utf-8").replace("\r\n", "\n")
        self.saved_text = self.text
        self._undo: list[tuple[str, str]] = []  # (text before, what the edit did)
        self._redo: list[tuple[str, str]] = []
        self._parsed: tuple[str, tomlkit.TOMLDocument] | None = None  # see prepare()

    # -- state
    @property
    def dirty(self) -> bool:
        return self.text != self.saved_text

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def document(self) -> tomlkit.TOMLDocument:
        """A fresh tomlkit document of the current text (edits never touch the current state)."""
        parsed, self._parsed = self._parsed, None  # a prepared document is used once: the edit changes it
        if parsed is not None and parsed[0] == self.text:
            return parsed[1]
        return tomlkit.parse(self.text)

    def prepare(self, text: str) -> None:
        """Parse ``text`` ahead of the next edit, off the UI thread (tomlkit takes ~25-35 ms on the campus
        file, in the way of every edit otherwise), unless a document of it is held already (the one the
        last edit made: see apply) or the text is no longer the current one. Safe from another thread:
        the pair is replaced whole, and document() takes it only when ``text`` is still the current text."""
        held = self._parsed
        if text == self.text and (held is None or held[0] != text):
            self._parsed = (text, tomlkit.parse(text))

    def _validate(self, text: str) -> Inputs:
        data = parse_toml(text, str(self.path))
        return site_from_data(data, self.path, self.catalog, self.templates, self.templates_dir)

    # -- edits
    def apply(self, edit: Edit) -> bool:
        """Apply an edit. Returns False if it changes nothing; raises InputError (state unchanged) if the
        edit is impossible or would leave an invalid site."""
        doc = self.document()
        edit.apply(doc)
        text = doc.as_string()
        if text == self.text:
            return False
        inputs = self._validate(text)
        self._undo.append((self.text, edit.describe()))
        self._redo.clear()
        self.text, self.inputs = text, inputs
        # after a change of values in their lines (a hall's kW, cooling or power, the cluster, a row's
        # place or template) the edited document is the new text's as a fresh parse would give it: the
        # next edit starts from it, with no parse of the whole file (tests/unit/test_siteedit.py checks
        # this along every edit kind). Not after an edit that adds or removes lines (a row, a key): a
        # document so edited may lay out a later edit's lines unlike a fresh parse (blank lines)
        if isinstance(edit, VALUE_EDITS) and text.count("\n") == self._undo[-1][0].count("\n"):
            self._parsed = (text, doc)
        return True

    def undo(self) -> str | None:
        """Go back one edit; returns what was undone, or None if there is nothing to undo."""
        return self._step(self._undo, self._redo)

    def redo(self) -> str | None:
        """Make the last undone edit again; returns what was redone, or None if there is nothing to redo."""
        return self._step(self._redo, self._undo)

    def _step(self, source: list[tuple[str, str]], target: list[tuple[str, str]]) -> str | None:
        """Restore the text on top of ``source``, keeping the current text on ``target``."""
        if not source:
            return None
        text, what = source.pop()
        target.append((self.text, what))
        self.text, self.inputs = text, self._validate(text)
        return what

    # -- files
    @property
    def backup_path(self) -> Path:
        return self.path.with_name(self.path.name + ".bak")

    def _read(self) -> bytes:
        """The file's bytes through the loader's checks (a regular file, size capped: never /dev/zero or
        a FIFO read whole or waited on); b"" where they fail, which load_site then names."""
        try:
            return read_input_bytes(self.path)
        except InputError:
            return b""

    def changed_on_disk(self) -> str | None:
        """How the file on disk differs from what was read or last saved (None: it does not)."""
        if not self.path.exists():
            return "the file was deleted or moved since it was read"
        try:
            data = read_input_bytes(self.path)
        except InputError as e:  # a FIFO, a device, a huge file: never read whole or waited on
            return f"the file cannot be read any more ({e.problems[0].problem})"
        if hashlib.sha256(data).hexdigest() != self.stamp.sha256:
            return "the file was changed on disk since it was read (by another program?)"
        return None

    def save(self, force: bool = False) -> Path | None:
        """Write the current text to the site file, atomically, after copying the file as it is on disk to
        ``NAME.toml.bak``; None (nothing written, no backup) when there are no edits to save.

        Refuses, writing nothing: InputError if the text does not validate; :class:`ChangedOnDisk` if the
        file on disk is not what was read (unless ``force``); OSError if the folder or the file cannot
        be written. The file keeps its line endings, a symlink is written through (the link stays)."""
        if not self.dirty:
            return None
        self._validate(self.text)
        if not force and (problem := self.changed_on_disk()) is not None:
            raise ChangedOnDisk(self.path, problem)
        target = Path(os.path.realpath(self.path))  # a symlink: its target is written, the link kept
        if target.exists() and not os.access(target, os.W_OK):
            raise PermissionError(13, "the site file is read-only", str(self.path))
        data = self.text.replace("\n", self.newline).encode("utf-8")
        if target.exists():
            write_bytes(self.backup_path, target.read_bytes())
            os.chmod(self.backup_path, target.stat().st_mode & 0o7777)  # the backup reads like the file
        write_bytes(target, data)
        self.saved_text = self.text
        self.stamp = Stamp.of(data, target)
        return self.path
