"""What installers and the bring-up team work from: labels, pull sheets and the turn-up cable map.

``dclayout design --labels`` writes

- ``STEM-labels.csv`` and ``STEM-labels.pdf``: one TIA-606-style scheme for every cable, trunk, panel and
  panel port. A label is printed for each end of a cable (near end first, then ``/`` and the far end);
  panels and panel ports once each. The names:

  - a rack end ``B1.H1.R01.K05-U41:7.2`` (building.hall.row.rack, ``-U`` and the device's RU, ``:`` and
    the port: the ports table's ``cable_id`` halves);
  - a panel ``B1.H1.R01.K01-PP03`` (the 1U panel 3 of the panel location in rack B1/H1/R01/K01);
  - a panel port ``B1.H1.R01.K01-PP03:07`` (MPO position 7) or ``...:07.2`` (LC duplex 2 of the cassette at
    position 7);
  - a point-to-point cable: ``SITE.`` + near end ``/`` far end (the ports table's ``cable_id``); a patch
    cord of a plant link: ``SITE.`` + port ``/`` panel port; a trunk: ``SITE.`` + panel ``/`` panel
    ``-T`` number (several trunks between one panel pair are numbered 1, 2, ...).

  Panel positions: at each panel location the trunks take consecutive fibres in trunk order, each link
  of a trunk its ``fibres`` in link order; a position is 12 fibres (one MPO-12 adapter or cassette),
  ``panel_fibres`` to a 1U panel.

- ``STEM-pull.csv``: the pull sheets, one per tray route (the trunks between one pair of panel
  locations share a route): per route its trunks in pulling order (longest first, then by number), each
  with from/to panel, length, fibres, links, the tray segments passed (count, and count per tray kind)
  and the cross-section it adds to every segment. A route's ``length_m`` rows sum to its trunks' metres.

``dclayout design --turnup`` writes ``STEM-cablemap.csv``, the cable map for the fabric's bring-up
checker: every switch and server port pair (node and port names, rack and U, the cable label) of every
network, one row per link; and ``STEM-backend.topo``, the backend fabric in the topology-file syntax of
InfiniBand's ibdm / ``ibdiagnet --topo`` (``NODE-TYPE NODE-NAME`` then ``  Pn -> TYPE NAME Pm`` per cabled
port; port numbers are the switch's cage-major port index, unverified against a real ibdiagnet run).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from layout.export.atomic import write_bytes, write_text

if TYPE_CHECKING:
    from layout.design import Design

LABEL_COLUMNS = ["id", "label", "item", "end", "near", "far"]
PULL_COLUMNS = [
    "route", "order", "trunk", "from_panel", "to_panel", "length_m", "fibres", "links", "segments",
    "segments_by_kind", "adds_mm2",
]  # fmt: skip
POSITION_FIBRES = 12


def _dotted(values: Any) -> np.ndarray:
    return np.asarray(pd.Series(values, dtype="string").str.replace("/", ".", regex=False), dtype=object)


def _site_code(design: Design) -> str:
    return design.inputs.stem.upper()


def _ports(design: Design) -> pd.DataFrame:
    from layout.export.tables.ports import ports_table

    return ports_table(design.fabric, design.placement, design.cabling, _site_code(design))


def panel_ports(design: Design) -> pd.DataFrame:
    """Per plant link (the channels that run through the panels): its link, trunk and its port at the
    a and b panel (``port_a``, ``port_b``: labels), and each trunk's panel names."""
    plant = design.cabling.plant
    ch = plant.channels[plant.channels["structured"].to_numpy()]
    if ch.empty:
        return pd.DataFrame({"link": [], "trunk": [], "port_a": [], "port_b": []})
    catalog = design.inputs.catalog
    per_panel = catalog.plant.panel_fibres
    trunks = plant.trunks
    rack_ids = _dotted(design.placement.racks["rack_id"])
    links = design.cabling.links
    media = links["media"].astype(str).to_numpy()
    li = ch["link"].to_numpy(np.int64)
    per_link = np.array([max(catalog.media[m].fibres, 1) for m in media[li]], dtype=np.int64)
    tk = ch["trunk"].to_numpy(np.int64)
    # offset of each link's first fibre inside its trunk: the links of a trunk in link order
    order = np.lexsort((li, tk))
    start_in_trunk = np.zeros(len(li), np.int64)
    cum = np.cumsum(per_link[order]) - per_link[order]
    tks = tk[order]
    first = np.r_[True, tks[1:] != tks[:-1]]
    base = np.maximum.accumulate(np.where(first, cum, 0))
    start_in_trunk[order] = cum - base
    out = {"link": li, "trunk": tk}
    t_fibres = trunks["fibres"].to_numpy(np.int64)
    for side in ("a", "b"):
        # at each panel rack, the trunks ending there take consecutive fibres in trunk order
        prack = trunks[f"panel_{side}"].to_numpy(np.int64)
        both = pd.DataFrame(
            {
                "rack": np.r_[trunks["panel_a"].to_numpy(np.int64), trunks["panel_b"].to_numpy(np.int64)],
                "trunk": np.r_[trunks["trunk"].to_numpy(np.int64), trunks["trunk"].to_numpy(np.int64)],
                "fibres": np.r_[t_fibres, t_fibres],
                "side": np.r_[np.zeros(len(trunks), np.int64), np.ones(len(trunks), np.int64)],
            }
        ).sort_values(["rack", "trunk", "side"], kind="stable")
        both["start"] = both.groupby("rack")["fibres"].cumsum() - both["fibres"]
        key = both.set_index(["trunk", "side"])["start"]
        t_start = key.xs(0 if side == "a" else 1, level="side").reindex(trunks["trunk"]).to_numpy(np.int64)
        fibre0 = t_start[tk] + start_in_trunk
        panel = fibre0 // per_panel + 1
        pos = (fibre0 % per_panel) // POSITION_FIBRES + 1
        sub = (fibre0 % POSITION_FIBRES) // 2 + 1
        lc = trunks["connector"].to_numpy(object)[tk] == "lc"
        name = pd.Series(panel_names(design, rack_ids, prack[tk], panel), dtype="string")
        port = name + ":" + pd.Series(pos).map("{:02d}".format)
        port = port.where(~pd.Series(lc), port + "." + pd.Series(sub).astype(str))
        out[f"port_{side}"] = np.asarray(port, dtype=object)
    return pd.DataFrame(out)


def panel_names(design: Design, rack_ids: np.ndarray, rack: np.ndarray, number: np.ndarray) -> np.ndarray:
    """The label of panel ``number`` (1, 2, ... at its location) of each panel location ``rack``: the
    location's first panels stand in its rack's free U (``RACK-PP03``), the rest in its fibre cabinets
    at the row end, ``cabinet_ru`` to a cabinet (``RACK-FC02-PP05``: panel 5 of cabinet 2)."""
    panels = design.cabling.plant.panels
    in_rack = np.zeros(len(rack_ids), np.int64)
    in_rack[panels["rack"].to_numpy(np.int64)] = panels["in_rack"].to_numpy(np.int64)
    per = design.inputs.catalog.plant.cabinet_ru
    rack, number = np.asarray(rack, np.int64), np.asarray(number, np.int64)
    beyond = number - in_rack[rack] - 1  # 0, 1, ... for the panels in the cabinets
    out = pd.Series(rack_ids[rack], dtype="string") + "-"
    cab = pd.Series(beyond // per + 1).map("FC{:02d}-".format)
    out = out + cab.where(pd.Series(beyond >= 0), "")
    return np.asarray(
        out + "PP" + pd.Series(np.where(beyond >= 0, beyond % per + 1, number)).map("{:02d}".format),
        dtype=object,
    )


def trunk_names(design: Design) -> np.ndarray:
    """Each trunk's label: SITE. panel a location / panel b location -T n (n within the pair)."""
    trunks = design.cabling.plant.trunks
    rack_ids = _dotted(design.placement.racks["rack_id"])
    pa, pb = trunks["panel_a"].to_numpy(np.int64), trunks["panel_b"].to_numpy(np.int64)
    n = pd.DataFrame({"a": pa, "b": pb}).groupby(["a", "b"]).cumcount().to_numpy() + 1
    code = _site_code(design)
    return np.array(
        [f"{code}.{rack_ids[a]}-PP/{rack_ids[b]}-PP-T{k:02d}" for a, b, k in zip(pa, pb, n, strict=True)],
        dtype=object,
    )


def labels_table(design: Design, ports: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every label (``LABEL_COLUMNS``): cables and patch cords at both ends, trunks at both ends, every 1U
    panel and every panel port in use. ``label`` is what is printed; ``near``/``far`` the two ends."""
    ports = _ports(design) if ports is None else ports
    code = _site_code(design)
    cid = ports["cable_id"].to_numpy(object)
    ends = pd.Series(cid, dtype="string").str.removeprefix(code + ".").str.split("/", n=1, expand=True)
    end_a = np.asarray(ends[0], dtype=object)
    end_b = np.asarray(ends[1], dtype=object)
    has = design.cabling.links["media"].astype(str).to_numpy() != ""
    pp = panel_ports(design)
    plant_link = np.zeros(len(cid), bool)
    plant_link[pp["link"].to_numpy(np.int64)] = True
    frames = []
    direct = np.flatnonzero(has & ~plant_link)

    def cable_rows(item: str, one: np.ndarray, two: np.ndarray, suffix: Any = "") -> list[pd.DataFrame]:
        """Both ends of cables from ``one`` to ``two``: the id (``one`` first), and at each end the label
        printed there, its own end first."""
        a, b = pd.Series(one, dtype="string"), pd.Series(two, dtype="string")
        ident = (code + "." + a + "/" + b + suffix).to_numpy(object)
        back = (code + "." + b + "/" + a + suffix).to_numpy(object)
        return [
            pd.DataFrame({"id": ident, "label": ident, "item": item, "end": "A", "near": one, "far": two}),
            pd.DataFrame({"id": ident, "label": back, "item": item, "end": "B", "near": two, "far": one}),
        ]

    frames += cable_rows("cable", end_a[direct], end_b[direct])
    if len(pp):
        li = pp["link"].to_numpy(np.int64)
        pa, pb = pp["port_a"].to_numpy(object), pp["port_b"].to_numpy(object)
        # each cord labelled with its own two ends (port first at the port end, panel port at the panel)
        frames += cable_rows("cord", end_a[li], pa)
        frames += cable_rows("cord", end_b[li], pb)
        rack_ids = _dotted(design.placement.racks["rack_id"])
        t = design.cabling.plant.trunks
        near = rack_ids[t["panel_a"].to_numpy(np.int64)] + "-PP"
        far = rack_ids[t["panel_b"].to_numpy(np.int64)] + "-PP"
        n = pd.DataFrame({"a": near, "b": far}).groupby(["a", "b"]).cumcount().to_numpy() + 1
        frames += cable_rows("trunk", near, far, pd.Series([f"-T{k:02d}" for k in n], dtype="string"))
        ports_used = np.r_[pa, pb]
        frames.append(
            pd.DataFrame(
                {
                    "id": ports_used,
                    "label": ports_used,
                    "item": "panel port",
                    "end": "",
                    "near": ports_used,
                    "far": "",
                }
            )
        )
        panels = design.cabling.plant.panels
        counts = panels["panels"].to_numpy(np.int64)
        pr = np.repeat(panels["rack"].to_numpy(np.int64), counts)
        k = np.concatenate([np.arange(1, c + 1) for c in counts]) if len(pr) else np.zeros(0, np.int64)
        names = panel_names(design, rack_ids, pr, k)
        frames.append(
            pd.DataFrame(
                {
                    "id": names,
                    "label": names,
                    "item": "panel",
                    "end": "",
                    "near": names,
                    "far": "",
                }
            )
        )
        # each fibre cabinet: named as its panels are (RACK-FC02), with the row it stands in
        cab = design.cabling.plant.cabinets
        if len(cab):
            number = pd.Series(cab["number"].to_numpy(np.int64)).map("-FC{:02d}".format)
            cabinet = rack_ids[cab["rack"].to_numpy(np.int64)] + np.asarray(number, dtype=object)
            frames.append(
                pd.DataFrame(
                    {
                        "id": cabinet,
                        "label": cabinet,
                        "item": "fibre cabinet",
                        "end": "",
                        "near": _dotted(cab["row"]),
                        "far": "",
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)[LABEL_COLUMNS]


def _route_paths(design: Design) -> tuple[np.ndarray, list[np.ndarray]]:
    """Per trunk, its route number (trunks between one panel pair share one), and per route the tray
    edges it passes (shortest path between the two panel racks, as the cabling routes)."""
    from layout.cable.route import tray_paths

    trays = design.cabling.trays
    t = design.cabling.plant.trunks
    pa, pb = t["panel_a"].to_numpy(np.int64), t["panel_b"].to_numpy(np.int64)
    key = pa * max(len(design.placement.racks), 1) + pb
    uk, route = np.unique(key, return_inverse=True)
    ra, rb = uk // max(len(design.placement.racks), 1), uk % max(len(design.placement.racks), 1)
    p = tray_paths(trays, ra, rb)
    row = np.full(trays.n_nodes, -1, dtype=np.int64)
    row[p.sources] = np.arange(len(p.sources))
    edges: list[np.ndarray] = []
    for i in range(len(uk)):
        q = p.pair[i]
        own = [trays.rack_edge[p.src_rack[q]], trays.rack_edge[p.dst_rack[q]]]
        path: list[int] = []
        s, cur = p.src_node[q], p.dst_node[q]
        if s >= 0 and cur >= 0 and s != cur:
            srow = row[s]
            while cur != s and cur >= 0:
                prev = int(p.pred[srow, cur])
                if prev < 0:
                    break
                path.append(int(trays.edge_between(np.array([prev]), np.array([cur]))[0]))
                cur = prev
        e = np.unique(np.array([x for x in [*own, *path] if x >= 0], dtype=np.int64))
        edges.append(e)
    return route, edges


def pull_table(design: Design) -> pd.DataFrame:
    """The pull sheets (``PULL_COLUMNS``, module docstring), route by route."""
    t = design.cabling.plant.trunks
    if t.empty:
        return pd.DataFrame({c: [] for c in PULL_COLUMNS})
    route, edges = _route_paths(design)
    rack_ids = _dotted(design.placement.racks["rack_id"])
    names = trunk_names(design)
    kinds = design.cabling.trays.edges["kind"].astype(str).to_numpy()
    pa, pb = t["panel_a"].to_numpy(np.int64), t["panel_b"].to_numpy(np.int64)
    route_name = np.array(
        [f"{rack_ids[a]}-PP > {rack_ids[b]}-PP" for a, b in zip(pa, pb, strict=True)], dtype=object
    )
    seg = np.array([len(edges[r]) for r in route], dtype=np.int64)

    def by_kind(e: np.ndarray) -> str:
        if not len(e):
            return ""
        s = pd.Series(kinds[e]).value_counts().sort_index()
        return ", ".join(f"{k} {v}" for k, v in s.items())

    kind_text = [by_kind(e) for e in edges]
    df = pd.DataFrame(
        {
            "route": route_name,
            "trunk": names,
            "from_panel": rack_ids[pa] + "-PP",
            "to_panel": rack_ids[pb] + "-PP",
            "length_m": t["length_m"].to_numpy(float),
            "fibres": t["fibres"].to_numpy(np.int64),
            "links": t["links"].to_numpy(np.int64),
            "segments": seg,
            "segments_by_kind": [kind_text[r] for r in route],
            "adds_mm2": np.round(t["area_mm2"].to_numpy(float), 2),
            "_route": route,
            "_trunk": t["trunk"].to_numpy(np.int64),
        }
    )
    df = df.sort_values(["_route", "length_m", "_trunk"], ascending=[True, False, True], kind="stable")
    df["order"] = df.groupby("_route").cumcount() + 1
    return df[PULL_COLUMNS].reset_index(drop=True)


LABEL_FONT = "Helvetica-Bold"
LABEL_PT = (7.0, 5.5)  # the largest label text, and the smallest before a cable's label takes two lines
LABEL_WIDTH_PT = (63.5 - 4.0) / 25.4 * 72  # a 63.5 mm label less 2 mm each side


def label_lines(label: str, width_pt: float) -> tuple[list[str], float]:
    """How a label's text fits ``width_pt``: its lines and their font size. One line at up to 7 pt;
    a cable's label (near end / far end) that would need less than 5.5 pt on one line is broken after
    its "/" into two; whatever the lines, the size makes the widest fit."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    def fit(lines: list[str]) -> float:
        return min(LABEL_PT[0], *(width_pt / max(stringWidth(t, LABEL_FONT, 1.0), 1e-9) for t in lines))

    one = fit([label])
    if one >= LABEL_PT[1] or "/" not in label:
        return [label], one
    cut = label.index("/") + 1
    two = [label[:cut], label[cut:]]
    return two, fit(two)


def write_labels_pdf(labels: pd.DataFrame, path: Path, title: str) -> Path:
    """Label sheets: 3 columns x 20 rows of 63.5 x 13 mm labels on A4, each the label text (sized to the
    label's width less 2 mm each side, :func:`label_lines`) and, below, its item and end; a fixed creation date (``invariant``) so the same labels give the same bytes."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1, pageCompression=1)
    c.setTitle(title)
    w, h = A4
    cols, rows = 3, 20
    lw, lh = 63.5 * mm, 13.0 * mm
    x0, y0 = (w - cols * lw) / 2, h - 15 * mm
    per = cols * rows
    text = labels["label"].astype(str).tolist()
    sub = (labels["item"].astype(str) + " " + labels["end"].astype(str)).str.strip().tolist()
    for i in range(0, max(len(text), 1), per):
        c.setFont("Helvetica", 6)
        c.drawString(
            x0, h - 9 * mm, f"{title}: labels {i + 1:,}-{min(i + per, len(text)):,} of {len(text):,}"
        )
        for j in range(min(per, len(text) - i)):
            col, r = j % cols, j // cols
            x, y = x0 + col * lw + 2 * mm, y0 - (r + 1) * lh
            lines, size = label_lines(text[i + j], LABEL_WIDTH_PT)
            c.setFont(LABEL_FONT, size)
            for k, line in enumerate(lines):  # one line at 7 mm; two at 9.5 and 6.5 mm
                c.drawString(x, y + (7.0 if len(lines) == 1 else 9.5 - 3.0 * k) * mm, line)
            c.setFont("Helvetica", 5.5)
            c.drawString(x, y + 2.5 * mm, sub[i + j])
        c.showPage()
    c.save()
    return write_bytes(path, buf.getvalue())


def write_labels(design: Design, out: Path, stem: str) -> list[Path]:
    """``STEM-labels.csv``, ``STEM-labels.pdf`` and ``STEM-pull.csv``."""
    labels = labels_table(design)
    written = [write_text(out / f"{stem}-labels.csv", labels.to_csv(index=False, lineterminator="\n"))]
    title = f"{design.inputs.site.site.name} (revision {design.inputs.site.site.revision})"
    written.append(write_labels_pdf(labels, out / f"{stem}-labels.pdf", title))
    written.append(
        write_text(out / f"{stem}-pull.csv", pull_table(design).to_csv(index=False, lineterminator="\n"))
    )
    return written


TURNUP_COLUMNS = [
    "cable", "network", "kind", "a_node", "a_port", "a_rack", "a_u", "b_node", "b_port", "b_rack", "b_u", "media",
]  # fmt: skip


def turnup_table(design: Design, ports: pd.DataFrame | None = None) -> pd.DataFrame:
    """The cable map (``TURNUP_COLUMNS``): every link of every network, its two ends' node, port, rack and
    U, its cable label and medium, in link order."""
    p = _ports(design) if ports is None else ports
    return pd.DataFrame(
        {
            "cable": p["cable_id"],
            "network": p["network"],
            "kind": p["kind"],
            "a_node": p["a_device"],
            "a_port": p["a_port"],
            "a_rack": p["a_rack"],
            "a_u": p["a_ru"],
            "b_node": p["b_device"],
            "b_port": p["b_port"],
            "b_rack": p["b_rack"],
            "b_u": p["b_ru"],
            "media": p["media"],
        }
    )[TURNUP_COLUMNS]


def topo_text(design: Design, table: pd.DataFrame) -> str:
    """The backend's links in ibdm topology-file syntax (module docstring): per node (device order) its
    cabled ports in port order, ``Pn -> TYPE NAME Pm`` (a server's port: its backend cage-port number)."""
    t = table[table["network"].astype(str) == "backend"]
    dev = design.fabric.devices.set_index("device_id")
    model = dev["model"].astype(str).to_dict()
    role = dev["role"].astype(str).to_dict()

    def split(port: pd.Series) -> tuple[np.ndarray, np.ndarray]:
        # "7/2": cage 7, port 2 (a switch); "be3/1": backend cage 3, port 1 (a server)
        s = port.astype(str).str.replace("be", "", regex=False).str.split("/", n=1, expand=True)
        cage = pd.to_numeric(s[0], errors="coerce").fillna(1).astype(np.int64).to_numpy()
        sub: np.ndarray = np.ones(len(s), np.int64)
        if s.shape[1] > 1:
            sub = pd.to_numeric(s[1], errors="coerce").fillna(1).astype(np.int64).to_numpy()
        return cage, sub

    ca, sa = split(t["a_port"])
    cb, sb = split(t["b_port"])
    both = pd.DataFrame(
        {
            "node": np.r_[t["a_node"].to_numpy(object), t["b_node"].to_numpy(object)],
            "cage": np.r_[ca, cb],
            "sub": np.r_[sa, sb],
            "peer": np.r_[t["b_node"].to_numpy(object), t["a_node"].to_numpy(object)],
        }
    )
    # a port's number on its node: (cage - 1) x the node's most ports per cage + port (QM9700: 2 a cage)
    width = both.groupby("node")["sub"].transform("max").to_numpy(np.int64)
    port = (both["cage"].to_numpy(np.int64) - 1) * width + both["sub"].to_numpy(np.int64)
    m = len(t)
    both["port"] = port
    both["peer_port"] = np.r_[port[m:], port[:m]]
    order = {d: i for i, d in enumerate(design.fabric.devices["device_id"].astype(str))}
    both["rank"] = both["node"].astype(str).map(order)
    both = both.sort_values(["rank", "port"], kind="stable")

    def kind(d: str) -> str:
        return "HCA" if role.get(d) == "server" else model.get(d, "SW").upper()

    lines = [
        f"# {design.inputs.site.site.name}: backend fabric cable map (ibdm topology-file syntax), by dclayout"
    ]
    for node, grp in both.groupby("rank", sort=True):
        name = str(grp["node"].iloc[0])
        lines.append("")
        lines.append(f"{kind(name)} {name}")
        for port, peer, pp in zip(grp["port"], grp["peer"], grp["peer_port"], strict=True):
            lines.append(f"   P{int(port)} -> {kind(str(peer))} {peer} P{int(pp)}")
        del node
    return "\n".join(lines) + "\n"


def write_turnup(design: Design, out: Path, stem: str) -> list[Path]:
    """``STEM-cablemap.csv`` and ``STEM-backend.topo``."""
    table = turnup_table(design)
    return [
        write_text(out / f"{stem}-cablemap.csv", table.to_csv(index=False, lineterminator="\n")),
        write_text(out / f"{stem}-backend.topo", topo_text(design, table)),
    ]
