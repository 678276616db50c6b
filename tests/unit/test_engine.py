"""The engine (layout.engine.cluster) in this process: results in item order, a raising task as its
item's Failed (a MemoryError saying so), the per-thread state kept between tasks, and a scheduler
address that is none, or where nothing listens, as one clean line (exit code 2 from the CLI) at once;
and what ``compare``, ``sweep``, ``optimize`` and ``report`` write and say when their engine loses its
cluster (an engine that loses it on purpose). tests/functional/test_engine_faults.py has the faults of
real Dask processes."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from layout.engine import Engine, Failed
from layout.engine.cluster import check_address, reason
from layout.errors import InputError, printable

ROOT = Path(__file__).resolve().parents[2]


def _div(shared: int, item: int, state: dict[str, Any]) -> int:
    state["calls"] = state.get("calls", 0) + 1
    return shared // item


def test_a_local_engine_keeps_order_state_and_reports_failures() -> None:
    seen: list[int] = []
    with Engine(workers=1) as e:
        assert e.local and e.n_workers() == 1
        got = e.map(_div, 12, [1, 0, 4, 3], done=lambda i, r: seen.append(i))
        assert e._local_state["calls"] == 4
    assert got == [12, Failed("ZeroDivisionError: integer division or modulo by zero"), 3, 4]
    assert seen == [0, 1, 2, 3]


def test_a_memory_error_says_so() -> None:
    def grab(shared: None, item: int, state: dict[str, Any]) -> int:
        if item:
            raise MemoryError("Unable to allocate 4.00 EiB for an array")
        return len(bytearray(1 << 62))  # refused at once: a MemoryError with no message

    with Engine(workers=1) as e:
        got = e.map(grab, None, [0, 1])
    assert got == [
        Failed("MemoryError: this process ran out of memory"),
        Failed("MemoryError: this process ran out of memory (Unable to allocate 4.00 EiB for an array)"),
    ]
    assert reason(MemoryError()) == "MemoryError: the worker ran out of memory"
    assert reason(ValueError("first\nsecond")) == "ValueError: first" and reason(KeyError()) == "KeyError"


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("nonsense", "no scheme: the address starts with tcp:// or tls://"),
        ("ucx://127.0.0.1:8786", "the scheme ucx:// is not supported here"),
        ("inproc://127.0.0.1/1/2", "the scheme inproc:// is not supported here"),
        ("tcp://127.0.0.1", "not HOST:PORT after the scheme"),
        ("tcp://:8786", "not HOST:PORT after the scheme"),
        ("tcp://127.0.0.1:0", "port 0 is not between 1 and 65535"),
        ("tcp://[::1]:65536", "port 65536 is not between 1 and 65535"),
        ("tcp://127.0.0.1:\u0668\u0667\u0668\u0666", "not HOST:PORT after the scheme"),  # Arabic-Indic digits
        ("tcp://user@host:1", "not HOST:PORT after the scheme"),
        ("tcp://host:1/path", "not HOST:PORT after the scheme"),
        ("tcp://a\nb:1", "not HOST:PORT after the scheme"),
        ("tcp://" + "a" * 300 + ":1", "308 characters is too long for an address (at most 300)"),
    ],
)
def test_an_address_that_is_no_scheduler_address_is_refused(address: str, why: str) -> None:
    with pytest.raises(InputError) as e, Engine(address):
        pass
    shown = address if len(address) <= 300 else f"{address[:40]}..."
    assert str(e.value) == printable(
        f"--scheduler: {shown}: not a Dask scheduler address: {why} (allowed: tcp://HOST:PORT or tls://HOST:PORT)"
    )


@pytest.mark.parametrize(
    "address", ["tcp://127.0.0.1:8786", "TLS://sched-1.example.org:8786", "tcp://[::1]:1"]
)
def test_scheduler_addresses(address: str) -> None:
    scheme, host, port = check_address(address)
    assert scheme in ("tcp", "tls") and host in ("127.0.0.1", "sched-1.example.org", "::1") and port


def test_a_port_where_nothing_listens_is_refused_at_once() -> None:
    with socket.socket() as s:  # a port free a moment ago: nothing listens there now
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    with pytest.raises(InputError) as e, Engine(address):
        pass
    assert str(e.value).startswith(
        f"--scheduler: {address}: no Dask scheduler answers there (Connection refused)"
    )


def test_the_cli_says_it_in_one_line_before_loading_anything(
    dclayout: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    res = dclayout("optimize", "no-such-site.toml", "--scheduler", "nonsense")
    assert res.returncode == 2 and res.stderr == (
        "--scheduler: nonsense: not a Dask scheduler address: no scheme: the address starts with tcp:// or "
        "tls:// (allowed: tcp://HOST:PORT or tls://HOST:PORT)\n"
    )


class _LosesTheCluster(Engine):
    """An engine that runs the first ``keep`` tasks of the run here and then loses its cluster: what the
    commands do with a lost cluster, without one (the real faults: tests/functional/test_engine_faults.py)."""

    keep = 2

    def __enter__(self) -> Engine:
        return self

    def map(self, fn: Any, shared: Any, items: Any, done: Any = None) -> list[Any]:
        out: list[Any] = []
        for i, item in enumerate(items):
            if self.lost is None and _LosesTheCluster.keep > 0:
                _LosesTheCluster.keep -= 1
                r = fn(shared, item, self._local_state)
            else:
                self.lost = f"the Dask scheduler at {self.scheduler} was lost"
                r = Failed(self.lost, lost=True)
            out.append(r)
            if done is not None:
                done(i, r)
        return out


@pytest.fixture
def loses(monkeypatch: pytest.MonkeyPatch) -> Callable[[int], str]:
    """``loses(keep)``: the commands' engine runs ``keep`` tasks, then loses its cluster; the address."""
    import layout.engine

    monkeypatch.setattr(layout.engine, "Engine", _LosesTheCluster)

    def keep(n: int) -> str:
        _LosesTheCluster.keep = n
        return "tcp://127.0.0.1:1"

    return keep


SMALL = ROOT / "tests" / "data" / "small-site.toml"


def test_sweep_writes_what_finished_when_the_cluster_is_lost(
    loses: Callable[[int], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pandas as pd

    from layout.cli import main

    spec = tmp_path / "spec.toml"
    spec.write_text(f'sites = ["{SMALL}"]\n[grid]\ndesign = ["rail", "mor"]\nnic = ["cx7", "cedar7"]\n')
    address = loses(3)
    assert main(["sweep", str(spec), "--out", str(tmp_path), "--scheduler", address]) == 3
    lost = f"the Dask scheduler at {address} was lost"
    assert capsys.readouterr().err == (
        f"{spec}: stopped: {lost}; 3 of 4 points finished, written to {tmp_path / 'sweep.csv'} and "
        f"{tmp_path / 'sweep-pareto.svg'}\n"
    )
    rows = pd.read_csv(tmp_path / "sweep.csv", keep_default_na=False)
    assert list(rows["error"]) == ["", "", "", f"failed: {lost}"]
    assert (tmp_path / "sweep-pareto.svg").stat().st_size > 0


def test_optimize_writes_the_best_so_far_when_the_cluster_is_lost(
    loses: Callable[[int], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from layout.cli import main

    address = loses(5)  # the baseline, then one batch of 4 (the assignment step first)
    args = ["optimize", str(SMALL), "--out", str(tmp_path), "--evaluations", "12", "--scheduler", address]
    assert main(args) == 3
    report = json.loads((tmp_path / "optimize.json").read_text())
    lost = f"the Dask scheduler at {address} was lost"
    assert report["stopped"] == lost and report["evaluations"] == 5 and report["lost_evaluations"] == 4
    assert report["reproduced"] is True and report["failed"] == []
    assert capsys.readouterr().err == (
        f"{SMALL}: stopped: {lost}; after 5 of 12 evaluations (4 lost), the best so far written to "
        f"{tmp_path / 'small-site-optimized.toml'} and {tmp_path / 'optimize.json'}\n"
    )
    assert not main(["validate", str(tmp_path / "small-site-optimized.toml")])


def test_optimize_writes_nothing_when_not_even_the_baseline_came_back(
    loses: Callable[[int], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from layout.cli import main

    address = loses(0)
    assert main(["optimize", str(SMALL), "--out", str(tmp_path), "--scheduler", address]) == 3
    assert capsys.readouterr().err == (
        f"{SMALL}: stopped: the Dask scheduler at {address} was lost; not even the baseline came back, "
        "nothing written\n"
    )
    assert not list(tmp_path.iterdir())


def test_compare_and_report_write_what_finished_when_the_cluster_is_lost(
    loses: Callable[[int], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    import pandas as pd

    from layout.cli import main

    address = loses(2)
    assert main(["compare", str(SMALL), "--out", str(tmp_path), "--scheduler", address]) == 3
    lost = f"the Dask scheduler at {address} was lost"
    assert capsys.readouterr().err == (
        f"{SMALL}: stopped: {lost}; 2 of 20 variants finished, written to {tmp_path / 'compare.csv'}\n"
    )
    rows = pd.read_csv(tmp_path / "compare.csv", keep_default_na=False)
    assert list(rows["error"]) == ["", ""] + [f"failed: {lost}"] * 18
    other = tmp_path / "other.toml"
    shutil.copy(SMALL, other)
    address = loses(1)
    assert main(["report", str(SMALL), str(other), "--out", str(tmp_path), "--scheduler", address]) == 3
    err = capsys.readouterr().err  # the site that finished, as ever, then the one line
    assert err.startswith(f"ok   {SMALL} -> ") and err.count("\nstopped: ") == 1
    assert err.endswith(f"\nstopped: {lost}; 1 of 2 report(s) written\n")
    assert (tmp_path / "small-site.pdf").exists() and not (tmp_path / "other.pdf").exists()
