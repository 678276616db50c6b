"""Ports, cages and modules: every link end on a real port of a real cage (vectorised, no loop per link).

A device's ports come in *cage groups* (GROUPS): a switch has its ``data`` cages (catalog ``cages`` x
``ports_per_cage``, e.g. QM9700 32 OSFP x 2) and separate RJ45 ``mgmt`` ports; a server has its
``backend`` NIC cages (``backend_ports`` / the NIC option's ``ports_per_module`` ports each: 8
single-port OSFP with cx7, 4 twin-port with cedar7), one-port ``frontend`` and ``storage`` cages and
RJ45 ``mgmt`` (BMC) ports. A link end goes to the group its kind asks for: GPU links to ``backend``,
frontend / storage links to those, out-of-band links to ``mgmt`` (on the out-of-band switch itself, to
its RJ45 data ports).

Order of the ports: a server's ports follow the fabric's link order (rail i on backend port i); a
switch's links are sorted by kind and far device before they fill its cages in turn, so that links
that go to the same place (the two parallel links of a leaf-spine pair, the rails of one server on a
middle-of-rack leaf) share a cage, and the pairs line up at both ends: the links that must share a
medium stay a handful (two leaves x two spines, two servers x two rails with Cedar-7).

One cage holds one module of one medium: the links that share a cage (at either end, transitively)
get the medium ``pick`` gives for the longest of them, so a twin-port cage with a 3 m and a 40 m link
carries two multimode links. Copper links in a shared cage are one cable assembly: ``twin`` (the same
two links share a cage at both ends: one 2 x 400G cable), ``breakout`` (a twin cage to two single-port
cages: one 800G port to 2 x 400G), its stock length that of the longer leg; a lone link is ``straight``.
No other copper assembly exists: links whose cages are shared any other way (a twin cage whose two
links go to two cages that each hold a link of a third) get the cheapest optical medium that reaches,
each link a cord between two modules (layout/cable/cages.py ``_copper_assembly``); where none reaches,
a ``ports`` violation names them. :func:`copper_assembly_problems` checks a port map for any other.

Backend links at a speed other than the switch's ports fill its data cages by lanes
(:func:`links_per_cage`): a cage holds at most one link per lane, so a 2 x 400G OSFP of 8 lanes holds
one 800G link, two 400G or eight links of 100G or slower, never hundreds of 1G links.

A device with more links in a group than the group has ports is a ``ports`` violation naming the
device, its rack and the counts.

What depends on the fabric alone (groups, ports, cages, which links share one: the
:class:`~layout.cable.cages.PortSkeleton`) is worked out in layout/cable/cages.py; :func:`finish` adds
what the routed lengths decide.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd

from layout.arrays import unique_inverse
from layout.cable.cages import ASSEMBLIES, BUILDABLE_COPPER, FORMS, GROUPS, CageParts, PortSkeleton, skeleton
from layout.violations import Violation

if TYPE_CHECKING:
    from layout.model import Catalog


class MediaTable(Protocol):
    """What the port map needs of layout.cable.media.MediaTable (media call ports, not the other way)."""

    @property
    def ids(self) -> tuple[str, ...]: ...

    @property
    def optical(self) -> np.ndarray: ...

    def is_optical(self, code: np.ndarray) -> np.ndarray: ...

    def pick(
        self, length_m: np.ndarray, speed_gbps: np.ndarray | int = 400, optical_only: bool = False
    ) -> np.ndarray: ...


GROUP_LABELS = ("", "be", "fe", "st", "mgmt", "up")  # cage label prefix: "7" on a switch, "be3" on a server
MAX_PORT_VIOLATIONS = 50  # one per device up to this many, then one for the rest


@dataclass(frozen=True)
class PortMap:
    """Per link end (``2 x links``: the a ends, then the b ends): ``group`` (GROUPS code), ``cage`` and
    ``port`` (0-based inside the group; port = cage x ports per cage + slot), ``per_cage`` (ports per
    cage of that group), per cage of the design ``cage_end`` (its first end) and ``cage_size``
    (its links), ``form`` (FORMS code: osfp, qsfp, sfp, rj45). Per link: ``code`` (medium index after cage sharing, -1 without a medium),
    ``stock_basis_m`` (the length its stock length is chosen for: the longest leg of a copper
    assembly), ``medium_for_m`` (the length its medium is chosen for: the longest link it shares
    cages with), ``assembly`` (ASSEMBLIES code). ``cages``: one row per device model and group (model,
    group, form, devices, cages, ports, used_cages, used_ports, over_devices). ``changed``: links
    whose medium the cage sharing changed. ``cage_parts``: what :meth:`modules` reads of each cage."""

    group: np.ndarray
    cage: np.ndarray
    port: np.ndarray
    per_cage: np.ndarray
    cage_end: np.ndarray
    cage_size: np.ndarray
    form: np.ndarray
    code: np.ndarray
    stock_basis_m: np.ndarray
    medium_for_m: np.ndarray
    assembly: np.ndarray
    cages: pd.DataFrame
    changed: int
    cage_parts: CageParts
    violations: list[Violation] = field(default_factory=list)

    def end(self, side: str) -> slice:
        n = len(self.code)
        return slice(0, n) if side == "a" else slice(n, 2 * n)

    def modules(self, devices: pd.DataFrame, links: pd.DataFrame, mt: MediaTable) -> pd.DataFrame:
        """Transceiver modules as plugged: one per cage that holds optical links (``Cabling.modules``
        columns: device, device_id, end, media, backend, links, links_per_module, modules, plus the
        cage's ``form``), in order of device, medium, backend, links per module and form. A twin-port
        cage with one link is still one twin-port module; an optical management link on an RJ45 port
        counts one module per end, never a data-cage module. What of a cage the fabric decides (its
        device, first link, kind, width, form: :class:`CageParts`) the skeleton worked out once; here
        only the media ("links" is read there, kept as an argument for the callers)."""
        return self.module_rows(mt).table(devices, mt)

    def module_rows(self, mt: MediaTable) -> ModuleRows:
        """The rows of :meth:`modules` as numbers."""
        cp = self.cage_parts
        med = self.code[cp.link]  # a cage holds one medium: its first link's
        med.flags.writeable = False
        key, links_n, cages_n = _module_counts(cp, med, self.cage_size, mt)
        return ModuleRows(cp, len(mt.ids) + 1, med, key, links_n, cages_n)

    def summary(self) -> dict[str, Any]:
        """summary.json ``ports``: cages used and available per model and group, overflows."""
        by_model: dict[str, dict[str, Any]] = {}
        counts = ("devices", "cages", "ports", "used_cages", "used_ports", "over_devices")
        for r in self.cages.to_dict("records"):
            by_model.setdefault(str(r["model"]), {})[str(r["group"])] = {
                "form": str(r["form"]),
                **{c: int(r[c]) for c in counts},
            }
        return {
            "by_model": by_model,
            "overflows": int(self.cages["over_devices"].sum()) if len(self.cages) else 0,
            "media_changed_links": int(self.changed),
            "assemblies": {
                a: int(np.count_nonzero(self.assembly == i)) for i, a in enumerate(ASSEMBLIES) if a
            },
        }


@dataclass(frozen=True)
class ModuleRows:
    """:meth:`PortMap.modules` as numbers, sorted by ``key`` (the packed device, medium and sub-key of
    :class:`CageParts`): per row the links and modules (cages); and what they were counted from (the
    cage parts, the media table's size ``media_k`` and each cage's medium ``med``)."""

    parts: CageParts
    media_k: int
    med: np.ndarray
    key: np.ndarray
    links: np.ndarray
    modules: np.ndarray

    def table(self, devices: pd.DataFrame, mt: MediaTable) -> pd.DataFrame:
        """The ``Cabling.modules`` table of these rows."""
        if not len(self.key):
            return _empty_modules()
        cp, k = self.parts, self.media_k
        sub, rest = self.key % cp.span, self.key // cp.span
        m, d = rest % k, rest // k
        server, sub = sub % 2, sub // 2
        f, sub = sub % len(FORMS), sub // len(FORMS)
        p, bk = sub % cp.per_span, sub // cp.per_span
        return pd.DataFrame(
            {
                "device": d,
                "device_id": _take_str(devices["device_id"], d),
                "end": _str_names(("switch", "server")).take(server),
                "media": _str_names((*mt.ids, "")).take(m),
                "backend": bk.astype(bool),
                "links": self.links.astype(np.int64),
                "links_per_module": p.astype(np.int64),
                "modules": self.modules.astype(np.int64),
                "form": _str_names(FORMS).take(f),
            }
        )


def _module_counts(
    cp: CageParts, med: np.ndarray, cage_size: np.ndarray, mt: MediaTable
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Module rows (sorted keys, links, modules) of the optical cages."""
    k = len(mt.ids) + 1
    sel = np.flatnonzero(mt.is_optical(med))
    if cp.media_k == k:  # the skeleton's catalog: its device and sub-key packed already
        mkey = cp.packed[sel] + med[sel] * cp.span
    else:
        mkey = (cp.dev[sel] * k + med[sel]) * cp.span + cp.sub[sel]
    srt = np.argsort(mkey, kind="stable")  # nearly sorted already (cages come in device order)
    ms = mkey[srt]
    starts = np.flatnonzero(np.r_[True, ms[1:] != ms[:-1]]) if len(ms) else np.zeros(0, np.int64)
    links_n = np.add.reduceat(cage_size[sel[srt]], starts) if len(ms) else np.zeros(0, np.int64)
    cages_n = np.diff(np.r_[starts, len(ms)])
    return ms[starts], links_n.astype(np.int64), cages_n.astype(np.int64)


def _str_names(values: tuple[str, ...]) -> Any:
    """A few names as a pandas ``str`` array, to ``take`` a column from by codes (no object array)."""
    return pd.array(list(values), dtype="str")


def _take_str(column: pd.Series, index: np.ndarray) -> Any:
    """``column`` at ``index`` as the ``str`` column a DataFrame of those strings would get: taken from
    the Arrow strings directly (a campus's ~45,000 module rows: ~0.3 ms instead of ~10 ms of
    converting Python strings)."""
    if isinstance(column.dtype, pd.StringDtype):
        return column.array.take(index)
    return column.to_numpy()[index]


def _empty_modules() -> pd.DataFrame:
    """PortMap.modules without optical cages (the columns and dtypes it always had)."""
    none = np.zeros(0, dtype=np.int64)
    obj = np.zeros(0, dtype=object)
    return pd.DataFrame(
        {
            "device": none,
            "device_id": obj,
            "end": np.zeros(0, dtype="<U6"),
            "media": obj,
            "backend": np.zeros(0, dtype=bool),
            "links": none,
            "links_per_module": none,
            "modules": none,
            "form": obj,
        }
    )


def assign(
    devices: pd.DataFrame,
    links: pd.DataFrame,
    code: np.ndarray,
    length_m: np.ndarray,
    rack_a: np.ndarray,
    rack_b: np.ndarray,
    mt: MediaTable,
    catalog: Catalog,
    nic: str,
    rack_ids: np.ndarray | None = None,
) -> PortMap:
    """Ports and cages of every link end, one medium per cage (module docstring)."""
    return finish(
        skeleton(devices, links, catalog, nic), devices, code, length_m, rack_a, rack_b, mt, rack_ids
    )


def finish(
    sk: PortSkeleton,
    devices: pd.DataFrame,
    code: np.ndarray,
    length_m: np.ndarray,
    rack_a: np.ndarray,
    rack_b: np.ndarray,
    mt: MediaTable,
    rack_ids: np.ndarray | None = None,
) -> PortMap:
    """The port map of a fabric's skeleton for the links' media and routed lengths: one medium per cage
    (the longest link sharing it decides), copper assemblies, the stock basis, the ``ports`` violations."""
    length = np.asarray(length_m, dtype=float)
    code = np.asarray(code)
    new_code, medium_for, basis, assembly, changed = _finish_links(sk, code, length, mt)
    for arr in (new_code, medium_for, basis, assembly):
        arr.flags.writeable = False  # the links table holds them: nothing may change them
    return PortMap(
        group=sk.group,
        cage=sk.cage,
        port=sk.port,
        per_cage=sk.per,
        cage_end=sk.cage_end,
        cage_size=sk.run_len,
        form=sk.form,
        code=new_code,
        stock_basis_m=basis,
        medium_for_m=medium_for,
        assembly=assembly,
        cages=sk.cages,
        changed=changed,
        cage_parts=sk.cage_parts,
        violations=[
            *_port_violations(sk, devices, rack_a, rack_b, rack_ids),
            *_unbuildable_violations(new_code, assembly, mt, devices, sk, rack_a, rack_ids),
        ],
    )


def copper_assembly_problems(code: np.ndarray, assembly: np.ndarray, mt: MediaTable) -> np.ndarray:
    """The links on copper whose assembly is not one that exists (straight, twin or breakout): empty on
    every port map :func:`finish` makes, unless no optical medium reaches them (then a ``ports``
    violation names them)."""
    copper = (code >= 0) & ~mt.is_optical(code)
    ok = np.isin(assembly, np.fromiter(BUILDABLE_COPPER, dtype=np.int8))
    return np.flatnonzero(copper & ~ok)


def _unbuildable_violations(
    code: np.ndarray,
    assembly: np.ndarray,
    mt: MediaTable,
    devices: pd.DataFrame,
    sk: PortSkeleton,
    rack_a: np.ndarray,
    rack_ids: np.ndarray | None,
) -> list[Violation]:
    """One ``ports`` violation for the copper links no copper assembly can build and no optical medium
    reaches (the first named)."""
    bad = copper_assembly_problems(code, assembly, mt)
    if not len(bad):
        return []
    first = int(bad[0])
    ids = devices["device_id"].to_numpy()
    a, b = sk.dev[first], sk.dev[sk.n + first]
    r = int(rack_a[first]) if len(rack_a) else -1
    where = str(rack_ids[r]) if rack_ids is not None and 0 <= r < len(rack_ids) else "unplaced"
    return [
        Violation(
            "ports",
            where,
            f"{len(bad)} copper links share cages in a way no cable assembly builds (e.g. {ids[a]} to "
            f"{ids[b]}) and no optical medium in the catalog reaches them",
            "an optical medium for these speeds in the catalog, or switches with single-port cages",
            {"links": int(len(bad)), "first": f"{ids[a]}-{ids[b]}"},
        )
    ]


def _finish_links(
    sk: PortSkeleton, code: np.ndarray, length: np.ndarray, mt: MediaTable
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """New code, medium_for, stock basis and assembly of every link, and how many of them the cage
    sharing gave another medium."""
    n = len(code)
    new_code = code.copy()
    medium_for = length.copy()
    changed = 0
    if len(sk.comp_starts):
        order, starts, comp = sk.comp_order, sk.comp_starts, sk.comp_of
        shared_all, speed = sk.shared, sk.speed
        ok = code >= 0
        longest = np.maximum.reduceat(np.where(ok, length, -np.inf)[order], starts) if n else medium_for
        shared = shared_all & ok
        medium_for = np.where(shared, longest[comp], length) if n else medium_for
        # a medium is picked by length (and speed): only groups whose links got different media change;
        # the media a component's links got, as bits (code -1, no medium: no bit)
        bits = np.left_shift(np.int64(1), code, where=ok, out=np.zeros(n, dtype=np.int64))
        seen = np.bitwise_or.reduceat(bits[order], starts) if n and code.max(initial=-1) < 63 else None
        if not n:
            mixed = np.zeros(0, dtype=np.int64)
        elif seen is not None:
            mixed = np.flatnonzero(shared & ((seen & (seen - 1)) != 0)[comp])
        else:  # pragma: no cover - a catalog of more than 63 media
            lo = np.minimum.reduceat(np.where(ok, code, np.iinfo(np.int64).max)[order], starts)
            hi = np.maximum.reduceat(np.where(ok, code, -1)[order], starts)
            mixed = np.flatnonzero(shared & (lo != hi)[comp])
        picked = mt.pick(medium_for[mixed], speed[mixed])
        new_code[mixed] = np.where(picked >= 0, picked, code[mixed])
        changed = int(np.count_nonzero(new_code[mixed] != code[mixed]))

    # copper assemblies: a lone link, a twin (same mates at both ends), a breakout (twin to singles);
    # copper that would need any other assembly goes optical (each link a cord between two modules)
    split = (new_code >= 0) & ~mt.is_optical(new_code) & (sk.copper_assembly == ASSEMBLIES.index("split"))
    if split.any():
        at = np.flatnonzero(split)
        optical = mt.pick(medium_for[at], sk.speed[at], optical_only=True)
        went = optical >= 0
        new_code[at[went]] = optical[went]
        changed += int(np.count_nonzero(went))
    kind = mt.is_optical(new_code)
    copper = (new_code >= 0) & ~kind
    assembly = np.where(
        copper, sk.copper_assembly, np.where(kind, np.int8(ASSEMBLIES.index("fibre")), np.int8(0))
    ).astype(np.int8)
    # fibre: every link its own patch cord; copper: the longest leg
    basis = np.where(copper, medium_for, length)
    return new_code, medium_for, basis, assembly, changed


def _port_violations(
    sk: PortSkeleton,
    devices: pd.DataFrame,
    rack_a: np.ndarray,
    rack_b: np.ndarray,
    rack_ids: np.ndarray | None,
) -> list[Violation]:
    """One ``ports`` violation per device over its cages (up to MAX_PORT_VIOLATIONS, then one for the
    rest), naming the rack it stands in."""
    violations: list[Violation] = []
    bad_dev, bad_grp = sk.over
    if not len(bad_dev):
        return violations
    dev, used_cages, used_ports, have = sk.dev, sk.used_cages, sk.used_ports, sk.have
    rack_of = np.full(len(devices), -1, dtype=np.int64)
    rack_of[dev[: len(rack_a)]] = rack_a
    rack_of[dev[len(rack_a) :]] = rack_b
    ids = devices["device_id"].to_numpy()
    mdl = devices["model"].to_numpy()
    for d, j in list(zip(bad_dev.tolist(), bad_grp.tolist(), strict=True))[:MAX_PORT_VIOLATIONS]:
        r = int(rack_of[d])
        where = str(rack_ids[r]) if rack_ids is not None and 0 <= r < len(rack_ids) else "unplaced"
        form = str(sk.form_tab[sk.model_code[d], j]).upper()
        violations.append(
            Violation(
                "ports",
                where,
                f"{ids[d]} ({mdl[d]}) in {where} needs {int(used_cages[d, j])} {GROUPS[j]} {form} cages "
                f"for {int(used_ports[d, j])} ports; it has {int(have[d, j])}",
                "fewer links on this device (a switch with more ports, fewer servers per leaf) or a "
                "model with more cages",
                {
                    "device": str(ids[d]),
                    "group": GROUPS[j],
                    "cages_needed": int(used_cages[d, j]),
                    "cages": int(have[d, j]),
                    "ports_used": int(used_ports[d, j]),
                },
            )
        )
    if len(bad_dev) > MAX_PORT_VIOLATIONS:
        violations.append(
            Violation(
                "ports",
                "site",
                f"{len(bad_dev) - MAX_PORT_VIOLATIONS} more devices need more cages than they have",
                "see summary.json ports.by_model",
                {"devices": int(len(bad_dev) - MAX_PORT_VIOLATIONS)},
            )
        )
    return violations


def cage_label_codes(group: np.ndarray, cage: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Cage names, 1-based: ``7`` (switch data cage 7, as NVIDIA numbers them), ``be3``, ``fe1``,
    ``st2``, ``mgmt1``, as (distinct names, index of each end's name)."""
    g = len(GROUPS)
    uniq, inv = unique_inverse(cage * g + group)
    return [f"{GROUP_LABELS[k % g]}{k // g + 1}" for k in uniq.tolist()], inv


def port_label_codes(
    group: np.ndarray, cage: np.ndarray, port: np.ndarray, per_cage: np.ndarray
) -> tuple[list[str], np.ndarray]:
    """Port names: cage and port inside it, ``7/2`` (NVIDIA's split-port naming), ``be3/1``, as
    (distinct names, index of each end's name)."""
    g, m = len(GROUPS), 16
    uniq, inv = unique_inverse((cage * g + group) * m + (port - cage * per_cage))
    return [f"{GROUP_LABELS[(k // m) % g]}{k // m // g + 1}/{k % m + 1}" for k in uniq.tolist()], inv


def port_labels(group: np.ndarray, cage: np.ndarray, port: np.ndarray, per_cage: np.ndarray) -> np.ndarray:
    """Each end's port name (``port_label_codes``) as an object array."""
    names, inv = port_label_codes(group, cage, port, per_cage)
    return np.asarray(names, dtype=object)[inv]
