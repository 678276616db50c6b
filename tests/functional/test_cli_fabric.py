"""`dclayout fabric` end to end: the JSON contract of DESIGN.md, the table, exit codes and messages."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from layout.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_json_contract_for_100k_gpus(dclayout: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    res = dclayout("fabric", "--gpus", "100000", "--switch", "qm9700", "--json")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    out = json.loads(res.stdout)  # exactly one JSON object
    assert res.stdout.count("\n") == 1
    assert list(out)[:10] == [
        "gpus",
        "servers",
        "tiers",
        "pods",
        "pod_gpus",
        "oversubscription",
        "switches",
        "links",
        "node_optics",
        "reliability",
    ]
    assert (out["gpus"], out["servers"], out["tiers"], out["pods"], out["pod_gpus"]) == (
        100_000,
        12_500,
        4,
        1,
        100_000,
    )
    assert out["oversubscription"] == 1.0 and isinstance(out["oversubscription"], float)
    assert {"leaf", "spine", "core", "total"} <= set(out["switches"])
    assert {"gpu_leaf", "leaf_spine", "spine_core", "total"} <= set(out["links"])
    assert out["links"]["gpu_leaf"] == 100_000 and out["node_optics"] == 100_000
    assert out["reliability"] == {"link_mtbf_years": 5.0, "time_to_first_failure_min": 26.28}


def test_json_128_port_switch_and_cedar7(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fabric", "--gpus", "100000", "--switch", "sn5600", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tiers"] == 3
    assert main(["fabric", "--gpus", "100000", "--nic", "cedar7", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["node_optics"] == 50_000
    assert out["reliability"] == {"link_mtbf_years": 4.0, "time_to_first_failure_min": 42.05}
    assert main(["fabric", "--gpus", "100000", "--nic", "cedar7", "--link-mtbf-years", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reliability"]["link_mtbf_years"] == 5.0


def test_json_pods_and_oversubscription(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["fabric", "--gpus", "98304", "--pod-gpus", "24576", "--oversubscription", "7:1", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert (out["pods"], out["pod_gpus"], out["tiers"], out["oversubscription"]) == (4, 24_576, 4, 7.0)
    assert out["switches"]["super"] > 0 and out["links"]["core_super"] > 0
    assert main(["fabric", "--gpus", "98304", "--design", "mor", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["node_optics"] == 0 and out["reliability"]["time_to_first_failure_min"] is None


def test_table_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fabric", "--gpus", "1024"]) == 0
    out = capsys.readouterr().out
    assert "1,024 GPUs on 128 x hgx-h100, rail-optimized on qm9700 (radix 64)" in out
    assert "2 tiers, 1 pod of 1,024 GPUs, non-blocking" in out
    lines = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") >= 4}
    assert "32" in lines["1 leaf"] and "1,024" in lines["1 leaf"]
    assert "16" in lines["2 spine"]
    assert "3 core" not in lines
    assert "node-side optics: 1,024 modules (cx7)" in out
    # 5 years x 525,600 min / 1,024 links = 2,566.4 min = 42.8 h, under the fabric-alone label
    assert (
        "time to the first failure, node-side links all optical (fabric alone, no placement): "
        "2,566 min (42.8 h) at 5-year link MTBF"
    ) in " ".join(out.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--gpus", "1024", "--switch", "x"],
            "dclayout fabric: --switch: unknown switch 'x' (allowed: q3400, q3450-ld, qm9700, sn2201, sn2700, sn5600, sn5610, tomahawk5)\n",
        ),
        (
            ["--gpus", "1024", "--server", "dgx-x"],
            "dclayout fabric: --server: unknown server 'dgx-x' (allowed: dgx-b200, dgx-b300, dgx-h100, "
            "gb200-nvl72, gb300-nvl72, hgx-b200, hgx-b300, hgx-h100)\n",
        ),
        (
            ["--gpus", "1024", "--nic", "cx9"],
            "dclayout fabric: --nic: unknown NIC 'cx9' (allowed: bf3, cedar7, cx7, cx8, cx8-2x400)\n",
        ),
        (
            ["--gpus", "1024", "--design", "tor"],
            "dclayout fabric: --design: unknown design 'tor' (allowed: rail, mor)\n",
        ),
        (
            ["--gpus", "100001"],
            "dclayout fabric: --gpus: 100001 GPUs is not a whole number of hgx-h100 servers (8 GPUs each) "
            "(allowed: a multiple of 8, e.g. 100000 or 100008)\n",
        ),
        (
            ["--gpus", "1024", "--pod-gpus", "100"],
            "dclayout fabric: --pod-gpus: 100 GPUs is not a whole number of hgx-h100 servers "
            "(allowed: a multiple of 8, or 0 for one pod)\n",
        ),
        (
            ["--gpus", "1024", "--link-mtbf-years", "0"],
            "dclayout fabric: --link-mtbf-years: link MTBF 0 years is out of range (allowed: > 0, <= 100)\n",
        ),
    ],
)
def test_bad_input_exits_2_with_the_option_named(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fabric", *args]) == 2
    cap = capsys.readouterr()
    assert cap.err == message and cap.out == ""


def test_argument_errors_exit_2(dclayout: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    for args in (["--gpus", "lots"], [], ["--gpus", "8", "--oversubscription", "7:2"]):
        res = dclayout("fabric", *args)
        assert res.returncode == 2, args
        assert res.stderr.startswith("dclayout fabric: ") and res.stderr.count("\n") == 1, res.stderr
        assert res.stdout == ""


# ------------------------------------------------------------------------------------------- --csv
def test_csv_writes_every_device_and_link(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pandas as pd

    out = tmp_path / "fab"
    assert main(["fabric", "--gpus", "2056", "--csv", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)  # --json still prints exactly one object
    dev = pd.read_csv(out / "fabric-devices.csv")
    links = pd.read_csv(out / "fabric-links.csv")
    assert list(dev.columns)[:7] == ["device_id", "role", "tier", "network", "pod", "group", "model"]
    assert list(links.columns)[:4] == ["a_device", "b_device", "kind", "network"]
    # tier 0 servers, 1 leaf, 2 spine, 3 core; the counts are those of --json
    tiers = dev.groupby("role")["tier"].agg(["min", "max", "size"])
    assert tiers.loc["server"].tolist() == [0, 0, 257]
    for tier, role in enumerate(["leaf", "spine", "core"], start=1):
        assert tiers.loc[role].tolist() == [tier, tier, summary["switches"][role]]
    assert len(links) == summary["links"]["total"]
    assert set(links["a_device"]) | set(links["b_device"]) <= set(dev["device_id"])
    kinds = links["kind"].value_counts()
    assert kinds["gpu_leaf"] == 2056 and kinds["leaf_spine"] == summary["links"]["leaf_spine"]
    # a link's ends: one tier apart, lower end first
    tier = dict(zip(dev["device_id"], dev["tier"], strict=True))
    assert (links["b_device"].map(tier) - links["a_device"].map(tier) == 1).all()


def test_csv_bytes_are_the_same_every_run(tmp_path: Path) -> None:
    for name in ("a", "b"):
        assert main(["fabric", "--gpus", "1000", "--switch", "sn5600", "--csv", str(tmp_path / name)]) == 0
    for f in ("fabric-devices.csv", "fabric-links.csv"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["fabric-devices.csv", "fabric-links.csv"]


def test_csv_to_a_place_that_cannot_be_written_is_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["fabric", "--gpus", "1024", "--csv", str(blocker / "sub")]) == 3
    err = capsys.readouterr().err
    assert err.startswith("dclayout fabric: --csv: export failed:") and err.count("\n") == 1


def test_json_says_what_was_built(capsys: pytest.CaptureFixture[str]) -> None:
    """The oversubscription is the one applied (1.0 with one pod); `built` has per tier the switches,
    links down and up and the most ports one switch uses."""
    assert main(["fabric", "--gpus", "24000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pods"] == 1 and out["oversubscription"] == 1.0
    built = out["built"]
    assert [b["role"] for b in built] == ["leaf", "spine", "core"]
    assert [b["switches"] for b in built] == [out["switches"][r] for r in ("leaf", "spine", "core")]
    assert all(b["max_ports_used"] <= out["radix"] for b in built)
    assert built[0]["links_down"] == 24_000 and built[-1]["links_up"] == 0
    for lower, upper in zip(built, built[1:], strict=False):
        assert lower["links_up"] == upper["links_down"] >= lower["links_down"]  # non-blocking in the pod
    assert (
        main(["fabric", "--gpus", "98304", "--pod-gpus", "24576", "--oversubscription", "7", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["oversubscription"] == 7.0
    core = out["built"][2]
    assert core["links_down"] == 98_304 and core["links_up"] * 7 >= core["links_down"]


def test_json_has_the_scalable_unit_of_the_system(
    dclayout: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    res = dclayout("fabric", "--gpus", "4608", "--server", "gb200-nvl72", "--switch", "qm9700", "--json")
    assert res.returncode == 0, res.stderr
    su = json.loads(res.stdout)["scalable_unit"]
    assert su == {"gpus": 576, "servers": 8, "racks": 8, "nvlink_gpus": 72}
    res = dclayout("fabric", "--gpus", "1024", "--json")
    assert json.loads(res.stdout)["scalable_unit"] == {
        "gpus": 256,
        "servers": 32,
        "racks": 8,
        "nvlink_gpus": 8,
    }


def test_oversubscription_without_pods_exits_2_naming_the_missing_option(
    dclayout: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    """It used to be ignored (the JSON said 1.0)."""
    res = dclayout("fabric", "--gpus", "24000", "--oversubscription", "7", "--json")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == (
        "dclayout fabric: --pod-gpus: an oversubscription of 7:1 applies between pods, and no pod size is "
        "given (allowed: pods smaller than the 24,000 GPUs, e.g. --pod-gpus 12000; or --oversubscription 1)\n"
    )


def test_pods_that_cost_more_warn_with_both_figures(
    dclayout: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    """Issue 26's figures: the non-blocking fabric is built, one warning line says both."""
    res = dclayout("fabric", "--gpus", "24008", "--pod-gpus", "8192", "--oversubscription", "3", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (out["pods"], out["oversubscription"], out["switches"]["total"], out["links"]["total"]) == (
        1,
        1.0,
        2016,
        72_136,
    )
    assert out["pods_cost_more"]["switches"] == 2416 and out["pods_cost_more"]["built"] == "non_blocking"
    assert res.stderr == (
        "dclayout fabric: warning: 3 pods of 8,192 GPUs at 3:1 need 2,416 switches and 80,328 links (4 "
        "tiers), more than one non-blocking fabric of the 24,008 GPUs: 2,016 switches and 72,136 links "
        "(3 tiers); built the non-blocking one\n"
    )
    res = dclayout("fabric", "--gpus", "98304", "--pod-gpus", "24576", "--oversubscription", "7", "--json")
    assert res.returncode == 0 and res.stderr == ""  # the seed's pods pay: 8,448 switches, not 10,9xx
    assert json.loads(res.stdout)["pods_cost_more"] is None


def _site(tmp_path: Path, name: str, **cluster: object) -> Path:
    """A shipped site with ``cluster`` keys set (TOML values as given)."""
    text = (ROOT / "sites" / f"{name}.toml").read_text()
    head, sep, rest = text.partition("[cluster]\n")
    lines = [line for line in rest.split("\n") if line.split("=")[0].strip() not in cluster]
    extra = [f"{k} = {v}" for k, v in cluster.items()]
    path = tmp_path / f"{name}.toml"
    path.write_text(head + sep + "\n".join(extra + lines))
    return path


def test_a_site_with_oversubscription_and_no_pods_is_refused_by_validate_and_design(
    tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    site = _site(tmp_path, "superpod-4su", oversubscription="3.0")
    line = (
        f"{site}: cluster.pod_gpus: an oversubscription of 3:1 applies between pods, and no pod size is "
        "given (allowed: pods smaller than the 1,024 GPUs, e.g. cluster.pod_gpus = 512; or "
        "cluster.oversubscription = 1)\n"
    )
    val = dclayout("validate", str(site))
    assert (val.returncode, val.stderr) == (2, line)
    des = dclayout("design", str(site), "--out", str(tmp_path / "out"))
    assert (des.returncode, des.stderr) == (2, line)


def test_nvl72_wiring_option(dclayout: Callable[..., subprocess.CompletedProcess[str]]) -> None:
    args = ("fabric", "--gpus", "576", "--server", "gb200-nvl72", "--switch", "qm9700", "--json")
    ra = json.loads(dclayout(*args).stdout)
    packed = json.loads(dclayout(*args, "--nvl72-wiring", "packed").stdout)
    assert (ra["nvl72_wiring"], ra["switches"]["total"]) == ("ra", 65)  # 32 leaves, 24 spines, 9 cores
    assert (packed["nvl72_wiring"], packed["switches"]["total"]) == ("packed", 29)  # 18 leaves, 11 spines
    res = dclayout("fabric", "--gpus", "1024", "--nvl72-wiring", "ra")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == (
        "dclayout fabric: --nvl72-wiring: applies to NVL72 rack systems only, not to hgx-h100 (allowed: "
        "leave it out, or a server of gb200-nvl72, gb300-nvl72)\n"
    )


@pytest.mark.parametrize(
    ("name", "value", "code", "message"),
    [
        ("gb200-hall", '"ra"', 0, ""),
        (
            "superpod-4su",
            '"ra"',
            2,
            "cluster.nvl72_wiring: applies to NVL72 rack systems only, not to dgx-h100 (allowed: leave it out, "
            "or a server of gb200-nvl72, gb300-nvl72)",
        ),
        ("gb200-hall", '"tight"', 2, "cluster.nvl72_wiring: "),
    ],
)
def test_nvl72_wiring_in_a_site(
    tmp_path: Path,
    dclayout: Callable[..., subprocess.CompletedProcess[str]],
    name: str,
    value: str,
    code: int,
    message: str,
) -> None:
    site = _site(tmp_path, name, nvl72_wiring=value)
    res = dclayout("validate", str(site))
    assert res.returncode == code, res.stderr
    if code:
        assert res.stderr.startswith(f"{site}: {message}") and res.stderr.count("\n") == 1
