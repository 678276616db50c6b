"""The engine's faults (layout.engine.cluster), each against real processes on 127.0.0.1 started here
(a ``dask scheduler``, ``dask worker`` processes, a TCP listener that never answers) and stopped at the
end. Every command is a subprocess with a timeout far above the time it should take: a hang fails the
test instead of stalling the suite.

- a ``ucx://`` address (refused before anything is loaded), a listener that accepts and never answers,
  a scheduler with no worker: each of ``compare``, ``sweep``, ``optimize`` and ``report`` says it in one
  line and exits 2;
- the scheduler killed mid-``compare``: one line naming it, exit 3, compare.csv written with the variants
  that finished and a row saying what was lost for each of the others;
- the only worker killed mid-``optimize``: one line naming it, exit 3, the best layout so far written and
  optimize.json with ``stopped`` and ``lost_evaluations`` (no cancelled futures among its failures);
- the only worker killed mid-``optimize`` and restarted by its nanny: the lost evaluations run again on
  the new worker, and the run ends as a local one does (exit 0, the same optimised site file);
- a MemoryError in a task on a worker comes back as "MemoryError: the worker ran out of memory".

The small test site and few evaluations keep this to a few tens of seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from layout.engine import Engine, Failed
from layout.engine.cluster import CONNECT_S, FIRST_WORKER_S, NO_WORKERS_S

ROOT = Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "data" / "small-site.toml"
SUPERPOD = ROOT / "sites" / "superpod-4su.toml"
BIN = Path(sys.executable).parent
LIMIT_S = 120  # no command here may take this long: far above the time any should take

pytestmark = pytest.mark.dask


class Cluster:
    """A ``dask scheduler`` and ``workers`` ``dask worker`` processes (each a nanny and its worker
    process) on 127.0.0.1, each in a process group of its own."""

    def __init__(self, tmp: Path, workers: int):
        self.tmp = tmp
        self.procs: list[subprocess.Popen[bytes]] = []
        info = tmp / "scheduler.json"
        self.scheduler = self._start(
            ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
            "scheduler",
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert info.exists(), (tmp / "scheduler.log").read_text()
        self.address: str = json.loads(info.read_text())["address"]
        self.workers = [
            self._start(
                ["worker", self.address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
                 "--name", f"w{i}"],
                f"worker{i}",
            )
            for i in range(workers)
        ]  # fmt: skip
        if workers:
            self.client(lambda c: c.wait_for_workers(workers, timeout=60))

    def _start(self, args: list[str], name: str) -> subprocess.Popen[bytes]:
        p = subprocess.Popen(
            [str(BIN / "dask"), *args],
            stdout=(self.tmp / f"{name}.log").open("wb"),
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            start_new_session=True,
        )
        self.procs.append(p)
        return p

    def client(self, ask: Callable[[Any], Any]) -> Any:
        from distributed import Client

        with Client(self.address, timeout="30s", set_as_default=False) as c:
            return ask(c)

    def wait_for_results(self, n: int) -> None:
        """Until the client of a run has taken the results of ``n`` tasks (the scheduler forgot them)."""

        def taken(dask_scheduler: Any) -> int:
            return sum(
                1
                for t in dask_scheduler.transition_log
                if t[2] == "forgotten" and str(t[0]).startswith("_call")
            )

        from distributed import Client

        with Client(self.address, timeout="30s", set_as_default=False) as c:
            deadline = time.monotonic() + LIMIT_S
            while c.run_on_scheduler(taken) < n:
                assert time.monotonic() < deadline, "the run took no results"
                time.sleep(0.05)

    def kill(self, p: subprocess.Popen[bytes]) -> None:
        """SIGKILL a process and its group (a worker: its nanny and its worker process)."""
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()

    def kill_worker_process(self, i: int) -> None:
        """SIGKILL worker ``i``'s worker process only: its nanny starts a new one."""
        import psutil

        (child,) = [
            c for c in psutil.Process(self.workers[i].pid).children() if "spawn_main" in " ".join(c.cmdline())
        ]
        child.kill()

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


@pytest.fixture
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[int], Cluster]]:
    """``cluster(workers)``: a new cluster, stopped at the end of the test."""
    made: list[Cluster] = []

    def make(workers: int) -> Cluster:
        made.append(Cluster(tmp_path_factory.mktemp("dask"), workers))
        return made[-1]

    yield make
    for c in made:
        c.stop()


@pytest.fixture
def silent() -> Iterator[str]:
    """The address of a TCP listener on 127.0.0.1 that accepts every connection and never says a word."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                held.append(server.accept()[0])

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    t.join()
    for s in held:
        s.close()
    server.close()


def _start(*args: str | Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "layout", *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _end(p: subprocess.Popen[str]) -> tuple[int, str]:
    """Exit code and stderr of a command (killed, and the test failed, if it outlives LIMIT_S)."""
    try:
        _, err = p.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        pytest.fail(f"{p.args} hung")
    return p.returncode, err


def _all_four(tmp: Path, address: str) -> dict[str, tuple[int, str]]:
    """compare, sweep, optimize and report of the small site with ``--scheduler address``, at once."""
    spec = tmp / "spec.toml"
    spec.write_text(f'sites = ["{SMALL}"]\n[grid]\ndesign = ["rail", "mor"]\n')
    runs = {
        "compare": _start("compare", SMALL, "--out", tmp / "compare", "--scheduler", address),
        "sweep": _start("sweep", spec, "--out", tmp / "sweep", "--scheduler", address),
        "optimize": _start(
            "optimize", SMALL, "--out", tmp / "opt", "--evaluations", "3", "--scheduler", address
        ),
        "report": _start("report", SMALL, "--out", tmp / "report", "--scheduler", address),
    }
    return {k: _end(p) for k, p in runs.items()}


def test_an_address_of_another_scheme_is_one_line(tmp_path: Path) -> None:
    address = "ucx://127.0.0.1:8786"
    for command, (code, err) in _all_four(tmp_path, address).items():
        assert (code, err) == (
            2,
            f"--scheduler: {address}: not a Dask scheduler address: the scheme ucx:// is not supported here "
            "(allowed: tcp://HOST:PORT or tls://HOST:PORT)\n",
        ), command


def test_a_listener_that_never_answers_is_one_line(tmp_path: Path, silent: str) -> None:
    for command, (code, err) in _all_four(tmp_path, silent).items():
        assert (code, err) == (
            2,
            f"--scheduler: {silent}: no Dask scheduler answered there within {CONNECT_S:g} s (allowed: the "
            "address of a running `dask scheduler`, e.g. tcp://10.0.0.5:8786)\n",
        ), command


def test_a_scheduler_without_workers_is_one_line(tmp_path: Path, cluster: Callable[[int], Cluster]) -> None:
    bare = cluster(0)
    for command, (code, err) in _all_four(tmp_path, bare.address).items():
        assert (code, err) == (
            2,
            f"--scheduler: {bare.address}: the Dask scheduler has no workers (none joined within "
            f"{FIRST_WORKER_S:g} s) (allowed: a scheduler with at least one `dask worker` connected to it)\n",
        ), command


def test_a_scheduler_killed_mid_run_keeps_what_finished(
    tmp_path: Path, cluster: Callable[[int], Cluster]
) -> None:
    c = cluster(1)
    run = _start("compare", ROOT / "sites" / "seed002-32k.toml", "--out", tmp_path, "--scheduler", c.address)
    c.wait_for_results(2)
    c.kill(c.scheduler)
    code, err = _end(run)
    import pandas as pd

    rows = pd.read_csv(tmp_path / "compare.csv", keep_default_na=False)
    # the scheduler's death reaches the client as the scheduler lost or, on a loaded machine a moment
    # earlier, as its workers lost with it: either way one line naming the loss, the finished rows kept
    losses = (
        f"the Dask scheduler at {c.address} was lost",
        f"every worker of the Dask scheduler at {c.address}",
    )
    finished = int((rows["error"] == "").sum())
    head = f"{ROOT / 'sites' / 'seed002-32k.toml'}: stopped: "
    tail = f"; {finished} of 20 variants finished, written to {tmp_path / 'compare.csv'}\n"
    assert code == 3 and err.startswith(head) and err.endswith(tail) and err.count("\n") == 1, err
    lost = err[len(head) : -len(tail)]
    assert lost.startswith(losses), lost
    assert len(rows) == 20 and 2 <= finished < 20
    assert set(rows.loc[rows["error"] != "", "error"]) == {f"failed: {lost}"}
    assert (rows.loc[rows["error"] == "", "cost_total_usd"].astype(float) > 0).all()


def test_the_only_worker_killed_mid_optimize_reports_the_lost_evaluations(
    tmp_path: Path, cluster: Callable[[int], Cluster]
) -> None:
    c = cluster(1)
    run = _start("optimize", SUPERPOD, "--out", tmp_path, "--evaluations", "60", "--scheduler", c.address)
    c.wait_for_results(3)
    c.kill(c.workers[0])
    code, err = _end(run)
    report = json.loads((tmp_path / "optimize.json").read_text())
    lost = f"every worker of the Dask scheduler at {c.address} was lost (none for {NO_WORKERS_S:g} s)"
    assert report["stopped"] == lost and report["lost_evaluations"] > 0
    assert 3 <= report["evaluations"] < 60 and report["reproduced"] is True
    assert not [f for f in report["failed"] if "Cancelled" in f]
    assert code == 3 and err == (
        f"{SUPERPOD}: stopped: {lost}; after {report['evaluations']} of 60 evaluations "
        f"({report['lost_evaluations']} lost), the best so far written to "
        f"{tmp_path / 'superpod-4su-optimized.toml'} and {tmp_path / 'optimize.json'}\n"
    )


def test_a_worker_that_dies_and_comes_back_costs_optimize_nothing(
    tmp_path: Path, cluster: Callable[[int], Cluster]
) -> None:
    c = cluster(1)
    common = ["--evaluations", "16", "--seed", "5"]
    run = _start("optimize", SUPERPOD, "--out", tmp_path / "far", "--scheduler", c.address, *common)
    c.wait_for_results(3)
    c.kill_worker_process(0)  # the shared inputs and the results it held die with it
    code, err = _end(run)
    assert code == 0, err
    here = _start("optimize", SUPERPOD, "--out", tmp_path / "here", "--workers", "1", *common)
    assert _end(here)[0] == 0
    far = json.loads((tmp_path / "far" / "optimize.json").read_text())
    assert far["evaluations"] == 16 and far["failed"] == [] and far["lost_evaluations"] == 0
    assert far["stopped"] is None
    name = "superpod-4su-optimized.toml"
    assert (tmp_path / "far" / name).read_bytes() == (tmp_path / "here" / name).read_bytes()
    mine = json.loads((tmp_path / "here" / "optimize.json").read_text())
    assert far["history"] == mine["history"] and far["best"] == mine["best"]


def test_a_memory_error_on_a_worker_says_so(cluster: Callable[[int], Cluster]) -> None:
    def _out_of_memory(shared: Any, item: int, state: dict[str, Any]) -> int:  # sent by value
        return len(bytearray(1 << 62))  # 4 EiB: refused at once, a MemoryError with no message

    c = cluster(1)
    with Engine(c.address) as engine:
        got = engine.map(_out_of_memory, None, [1, 2])
        assert engine.lost is None
    assert got == [Failed("MemoryError: the worker ran out of memory")] * 2
