"""The DCIM tables and files (layout/export/dcim.py) against the design they come from, and the push's
idempotence against an in-memory server that answers as Nautobot's REST API does (ids for references,
``{"value": ...}`` for choices). The push into a real Nautobot is tests/dcim/test_nautobot_push.py."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from layout.export import dcim
from layout.export.dcim_push import push, read_counts


@pytest.fixture(scope="module")
def design(design_of: Any) -> Any:
    return design_of("superpod-4su")


@pytest.fixture(scope="module")
def tables(design: Any) -> dcim.DcimTables:
    return dcim.dcim_tables(design)


def test_every_cable_as_built_is_there_once(design: Any, tables: dcim.DcimTables) -> None:
    links = design.cabling.links
    plant = design.cabling.plant
    n_plant = int(plant.channels["structured"].sum())
    cabled = int((links["media"].astype(str) != "").sum())
    # a point-to-point link is one cable; a plant link two cords; a trunk one cable
    assert len(tables.cables) == (cabled - n_plant) + 2 * n_plant + len(plant.trunks)
    kinds = tables.cables.groupby(["side_a_type", "side_b_type"]).size().to_dict()
    assert kinds[("dcim.interface", "dcim.interface")] == cabled - n_plant
    assert kinds[("dcim.interface", "dcim.frontport")] == 2 * n_plant
    assert kinds[("dcim.rearport", "dcim.rearport")] == len(plant.trunks)
    assert tables.cables["label"].is_unique
    # every end is a port of a device that is there, and no port takes two cables
    ports = {
        "dcim.interface": set(zip(tables.interfaces["device"], tables.interfaces["name"], strict=True)),
        "dcim.frontport": set(zip(tables.front_ports["device"], tables.front_ports["name"], strict=True)),
        "dcim.rearport": set(zip(tables.rear_ports["device"], tables.rear_ports["name"], strict=True)),
    }
    used = []
    for side in ("a", "b"):
        for kind, dev, name in zip(
            tables.cables[f"side_{side}_type"],
            tables.cables[f"side_{side}_device"],
            tables.cables[f"side_{side}_name"],
            strict=True,
        ):
            assert (dev, name) in ports[kind], (kind, dev, name)
            used.append((kind, dev, name))
    assert len(used) == len(set(used))


def test_devices_sit_where_the_placement_put_them(design: Any, tables: dcim.DcimTables) -> None:
    dev = design.fabric.devices
    placed = design.placement.device_rack >= 0
    racks = design.placement.racks
    servers = tables.devices[tables.devices["device_type"] != dcim.PANEL_TYPE]
    assert len(servers) == int(placed.sum())
    assert servers["name"].tolist() == dev["device_id"].astype(str)[placed].tolist()
    rack_ids = racks["rack_id"].astype(str).to_numpy()
    assert servers["rack"].tolist() == rack_ids[design.placement.device_rack[placed]].tolist()
    assert servers["position"].astype(int).tolist() == design.placement.device_ru[placed].tolist()
    # one panel enclosure per rack that holds panels
    enclosures = tables.devices[tables.devices["device_type"] == dcim.PANEL_TYPE]
    panel_racks = rack_ids[design.cabling.plant.panels["rack"].to_numpy(np.int64)]
    assert sorted(enclosures["rack"]) == sorted(panel_racks)
    # racks at their floor position, in millimetres
    assert tables.racks["cf_floor_x_mm"].tolist() == [round(x * 1000) for x in racks["x_m"]]
    assert tables.racks["cf_floor_y_mm"].tolist() == [round(y * 1000) for y in racks["y_m"]]


def test_front_ports_map_into_their_trunks_rear_port(tables: dcim.DcimTables) -> None:
    rear = tables.rear_ports.set_index(["device", "name"])["positions"]
    f = tables.front_ports
    assert not f.duplicated(["device", "rear_port", "rear_port_position"]).any()
    assert not f.duplicated(["device", "name"]).any()
    for d, r, pos in zip(f["device"], f["rear_port"], f["rear_port_position"], strict=True):
        assert 1 <= pos <= rear[(d, r)]
    # a trunk's positions are its links: the front ports on each rear port fill 1..positions
    per = f.groupby(["device", "rear_port"])["rear_port_position"].agg(["count", "max"])
    assert (per["count"] == per["max"]).all()
    assert (per["count"].to_numpy() == rear.loc[per.index].to_numpy()).all()


def test_power_feeds_are_the_tap_offs(design: Any, tables: dcim.DcimTables) -> None:
    s = design.schedule
    taps = s[s["part"] == "tap-off"]
    assert len(tables.power_feeds) == len(taps)
    assert set(tables.power_feeds["power_panel"]) <= set(tables.power_panels["name"])
    assert set(tables.power_panels["name"]) == set(s.loc[s["part"] == "switchboard", "part_id"])
    a = tables.power_feeds[tables.power_feeds["name"].str.endswith("TAP-A")]
    assert (a["type"] == "primary").all() and len(a) == len(taps[taps["side"] == "A"])
    # a 41.2 kW rack of 4 DGX H100 at 415 V draws 60.3 A: its tap-off breaker is the 80 A frame
    racks = design.placement.racks
    gpu = set(racks.loc[racks["template"] == "dgx-h100-x4", "rack_id"])
    assert len(gpu) == 32 and set(a.loc[a["rack"].isin(gpu), "amperage"]) == {80}


def test_device_types_read_back_as_the_library_layout(tmp_path: Path, design: Any) -> None:
    paths = dcim.write_dcim(design, tmp_path, "x")
    docs = list(yaml.safe_load_all((tmp_path / "x-dcim-device-types.yaml").read_text()))
    assert len(docs) == 9 and len({d["slug"] for d in docs}) == 9
    for d in docs:
        assert {"manufacturer", "model", "slug", "u_height"} <= set(d)
        names = [i["name"] for i in d.get("interfaces", [])]
        assert len(names) == len(set(names))
    qm = next(d for d in docs if d["slug"] == "qm9700")
    # a QM9700: 32 OSFP cages of 2 x 400G ports and one management port
    assert qm["manufacturer"] == "NVIDIA" and qm["u_height"] == 1
    data = [i for i in qm["interfaces"] if not i.get("mgmt_only")]
    assert len(data) == 64 and {i["type"] for i in data} == {"400gbase-x-osfp"}
    assert data[0]["name"] == "1/1" and data[-1]["name"] == "32/2"
    dgx = next(d for d in docs if d["slug"] == "dgx-h100")
    assert sum(i["name"].startswith("be") for i in dgx["interfaces"]) == 8  # 4 twin-port OSFP cages
    # the CSV files read back equal the tables
    t = dcim.dcim_tables(design)
    cables = pd.read_csv(tmp_path / "x-dcim-cables.csv", keep_default_na=False)
    assert len(cables) == len(t.cables) and cables["label"].tolist() == t.cables["label"].tolist()
    assert {p.name for p in paths} >= {"x-dcim-racks.csv", "x-dcim-power-feeds.csv"}


# ------------------------------------------------------------------ push, against a server in memory
class FakeNautobot:
    """Just enough of Nautobot's REST API: list (paginated), bulk create, bulk patch; references
    returned as ``{"id": ...}``, choice fields as ``{"value": ...}``, device types' interface templates
    made into interfaces when a device is created."""

    CHOICES = {"type", "face", "supply", "phase", "length_unit"}

    def __init__(self) -> None:
        self.objects: dict[str, dict[str, dict[str, Any]]] = {}
        self.ids = itertools.count(1)
        self.writes = 0

    def _out(self, o: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in o.items():
            if k in self.CHOICES and isinstance(v, str):
                out[k] = {"value": v, "label": v}
            elif isinstance(v, str) and v.startswith("uuid-") and k != "id":
                out[k] = {"id": v, "object_type": "x", "url": "x"}
            else:
                out[k] = v
        return out

    def _create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        o = {"id": f"uuid-{next(self.ids)}", **body}
        self.objects.setdefault(path, {})[o["id"]] = o
        if path == "/api/dcim/devices/":
            for t in self.objects.get("/api/dcim/interface-templates/", {}).values():
                if t["device_type"] == body["device_type"]:
                    self._create(
                        "/api/dcim/interfaces/",
                        {
                            "device": o["id"],
                            "name": t["name"],
                            "type": t["type"],
                            "mgmt_only": t["mgmt_only"],
                            "status": "uuid-0",
                        },  # fmt: skip
                    )
        return o

    def __call__(self, method: str, path: str, body: Any = None) -> Any:
        if method == "GET":
            base, _, query = path.partition("?")
            q = dict(kv.split("=") for kv in query.split("&"))
            rows = list(self.objects.get(base, {}).values())
            lo, n = int(q["offset"]), int(q["limit"])
            page = rows[lo : lo + n]
            return {"count": len(rows), "next": "more" if lo + n < len(rows) else None,
                    "results": [self._out(o) for o in page]}  # fmt: skip
        self.writes += 1
        if method == "POST":
            if isinstance(body, list):
                return [self._out(self._create(path, b)) for b in body]
            return self._out(self._create(path, body))
        if method == "PATCH":
            items = body if isinstance(body, list) else [{"id": path.rstrip("/").split("/")[-1], **body}]
            base = path if isinstance(body, list) else path.rsplit("/", 2)[0] + "/"
            for b in items:
                self.objects[base][b["id"]].update({k: v for k, v in b.items() if k != "id"})
            return None
        raise AssertionError(method)


def test_a_second_push_changes_nothing(tables: dcim.DcimTables) -> None:
    server = FakeNautobot()
    first = push(tables, server)
    assert first.created["cables"] == len(tables.cables)
    assert first.created["devices"] == len(tables.devices)
    # interfaces come from the device types' templates, as they are: nothing to create or patch
    assert first.created["interfaces"] == 0 and first.unchanged["interfaces"] == len(tables.interfaces)
    held = read_counts(server, tables)
    want = dcim.counts(tables)
    assert held == {k: want[k] for k in held}
    writes = server.writes
    second = push(tables, server)
    assert second.changes == 0 and server.writes == writes
    assert second.unchanged["cables"] == len(tables.cables)


def test_a_push_mends_what_was_changed_on_the_server(tables: dcim.DcimTables) -> None:
    server = FakeNautobot()
    push(tables, server)
    racks = server.objects["/api/dcim/racks/"]
    rid = next(iter(racks))
    racks[rid]["custom_fields"] = {**racks[rid]["custom_fields"], "floor_x_mm": 1}
    again = push(tables, server)
    assert again.updated["racks"] == 1 and again.changes == 1
    assert racks[rid]["custom_fields"]["floor_x_mm"] == int(tables.racks["cf_floor_x_mm"].iloc[0])


def test_cable_lengths_go_in_whole_centimetres() -> None:
    from layout.export.dcim_push import _cm

    assert _cm(9.989) == (999, "cm")
    assert _cm(2.0) == (200, "cm")
    assert _cm(327.67) == (32767, "cm")
    assert _cm(650.2) == (651, "m")


def test_the_readme_quotes_what_the_dry_run_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from layout.cli import main

    root = Path(__file__).resolve().parents[2]
    assert main(["push", str(root / "sites" / "superpod-4su.toml"), "--dry-run"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("superpod-4su: would hold 3 locations, 47 racks")
    assert line in (root / "README.md").read_text()


def test_push_without_a_token_or_url_is_bad_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from layout.cli import main

    monkeypatch.delenv("DCLAYOUT_DCIM_TOKEN", raising=False)
    root = Path(__file__).resolve().parents[2]
    assert main(["push", str(root / "sites" / "superpod-4su.toml"), "--url", "ftp://x"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "push: --url: the server's address, starting with http:// or https://",
        "push: DCLAYOUT_DCIM_TOKEN: set it in the environment to the server's API token",
    ]


def test_an_unreachable_server_is_one_line_and_exit_3(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from layout.cli import main

    monkeypatch.setenv("DCLAYOUT_DCIM_TOKEN", "x")
    root = Path(__file__).resolve().parents[2]
    # port 9 on loopback: nothing listens (discard), the connection is refused at once
    assert main(["push", str(root / "sites" / "superpod-4su.toml"), "--url", "http://127.0.0.1:9"]) == 3
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("push: GET http://127.0.0.1:9/api/extras/statuses/")


def test_every_cable_has_a_dcim_type(tables: dcim.DcimTables) -> None:
    """A medium class with no DCIM cable type pushed a blank type the server returned as null, and the
    next push patched 209 management cables again (seen on a real Nautobot)."""
    assert (tables.cables["type"] != "").all()
    assert set(tables.cables["type"]) <= {
        "mmf-om4",
        "mmf-om3",
        "smf-os2",
        "dac-passive",
        "dac-active",
        "cat6a",
    }
