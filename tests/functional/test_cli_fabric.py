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
    assert "1,024 GPUs on 128 x dgx-h100, rail-optimized on qm9700 (radix 64)" in out
    assert "2 tiers, 1 pod of 1,024 GPUs, non-blocking" in out
    lines = {line.split("│")[1].strip(): line for line in out.splitlines() if line.count("│") >= 4}
    assert "32" in lines["1 leaf"] and "1,024" in lines["1 leaf"]
    assert "16" in lines["2 spine"]
    assert "3 core" not in lines
    assert "node-side optics: 1,024 modules (cx7)" in out
    assert "time to first node-link failure: 2,566.41 min at 5-year link MTBF" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--gpus", "1024", "--switch", "x"],
            "dclayout fabric: --switch: unknown switch 'x' (allowed: q3400, qm9700, sn2201, sn5600, tomahawk5)\n",
        ),
        (
            ["--gpus", "1024", "--server", "dgx-b200"],
            "dclayout fabric: --server: unknown server 'dgx-b200' (allowed: dgx-h100, gb200-nvl72)\n",
        ),
        (
            ["--gpus", "1024", "--nic", "cx9"],
            "dclayout fabric: --nic: unknown NIC 'cx9' (allowed: bf3, cedar7, cx7)\n",
        ),
        (
            ["--gpus", "1024", "--design", "tor"],
            "dclayout fabric: --design: unknown design 'tor' (allowed: rail, mor)\n",
        ),
        (
            ["--gpus", "100001"],
            "dclayout fabric: --gpus: 100001 GPUs is not a whole number of dgx-h100 servers (8 GPUs each) "
            "(allowed: a multiple of 8, e.g. 100000 or 100008)\n",
        ),
        (
            ["--gpus", "1024", "--pod-gpus", "100"],
            "dclayout fabric: --pod-gpus: 100 GPUs is not a whole number of dgx-h100 servers "
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
        assert "dclayout fabric: error:" in res.stderr and res.stdout == ""
