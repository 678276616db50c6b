"""The distributed engine on a real Dask cluster: a ``dask scheduler`` and two ``dask worker`` processes
started here on 127.0.0.1 (stopped at the end), against the same work run in this process.

- a fixed-seed layout search gives the same result (layout, figures, convergence) in-process and on the
  cluster, and ``dclayout optimize --scheduler`` writes the same optimised site file as a local run;
- ``dclayout compare --scheduler`` writes the same compare.csv bytes as a local run, and
  ``dclayout sweep --scheduler`` the same sweep.csv and Pareto chart;
- ``dclayout report --scheduler`` writes the same PDF bytes as a local run;
- the exact assignment step (an SU order per hall, solved on the worker) gives the same orders and
  figures on the cluster as here;
- a task that raises comes back as its item's Failed; the other items finish.

The small shipped SuperPOD hall keeps this to a few tens of seconds.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from layout.engine import Engine, Failed
from layout.engine import optimize as opt
from layout.load import load_site

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "sites" / "superpod-4su.toml"
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.dask


def _start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        args, stdout=log.open("wb"), stderr=subprocess.STDOUT, cwd=ROOT, start_new_session=True
    )


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of a scheduler with two single-threaded workers, all on 127.0.0.1."""
    tmp = tmp_path_factory.mktemp("dask")
    info = tmp / "scheduler.json"
    dask = str(BIN / "dask")
    procs = [
        _start(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
             str(info)],
            tmp / "scheduler.log",
        )
    ]  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert info.exists(), (tmp / "scheduler.log").read_text()
        for i in range(2):
            procs.append(
                _start(
                    [dask, "worker", "--scheduler-file", str(info), "--nthreads", "1", "--nworkers", "1",
                     "--host", "127.0.0.1", "--no-dashboard", "--name", f"w{i}"],
                    tmp / f"worker{i}.log",
                )
            )  # fmt: skip
        address = json.loads(info.read_text())["address"]
        from distributed import Client

        with Client(address, timeout="30s") as c:
            c.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()


def _search(engine: Engine) -> opt.Result:
    inputs = load_site(SITE)
    problem = opt.Problem(inputs, opt.Space.of(inputs.site), 5.0)
    return opt.search(problem, engine, seed=7, max_evals=13, budget_s=600, batch=4)


def test_a_fixed_seed_search_is_the_same_in_process_and_on_the_cluster(scheduler: str) -> None:
    with Engine(workers=1) as here:
        local = _search(here)
    with Engine(scheduler) as remote:
        assert remote.n_workers() == 2
        far = _search(remote)
    assert far.evaluations == local.evaluations == 13
    assert far.best_layout == local.best_layout
    assert far.best == local.best and far.baseline == local.baseline
    assert far.history == local.history
    assert far.best["optics_usd"] <= far.baseline["optics_usd"]
    assert far.assign_steps == local.assign_steps > 0 and far.assign_kept == local.assign_kept


def test_the_assignment_step_gives_the_same_orders_on_the_cluster(scheduler: str) -> None:
    # seed002: 3 tiers, spine groups over 4 halls, so the step reorders every hall's SUs
    inputs = load_site(ROOT / "sites" / "seed002-32k.toml")
    space = opt.Space.of(inputs.site)
    problem = opt.Problem(inputs, space, 5.0)
    item = opt.AssignFrom(space.baseline(inputs.site))
    with Engine(scheduler) as remote:
        far = remote.map(opt.evaluate, problem, [item])[0]
    with Engine(workers=1) as here:
        local = here.map(opt.evaluate, problem, [item])[0]
        before = here.map(opt.evaluate, problem, [space.baseline(inputs.site)])[0]
    assert isinstance(far, dict) and far == local
    # every hall's SUs reordered, and the optics cheaper than the baseline's
    assert len(far["assigned"].order) == 4 and far["score"]["optics_usd"] < before["optics_usd"]


def test_a_failing_task_is_reported_and_the_others_finish(scheduler: str) -> None:
    inputs = load_site(SITE)
    space = opt.Space.of(inputs.site)
    problem = opt.Problem(inputs, space, 5.0)
    good = space.baseline(inputs.site)
    broken = opt.Layout(mdf=(), spine=(), axis=())  # no entry for the site's hall: apply() fails
    with Engine(scheduler) as remote:
        got = remote.map(opt.evaluate, problem, [good, broken, good])
    with Engine(workers=1) as here:
        mine = here.map(opt.evaluate, problem, [good, broken])
    assert isinstance(got[0], dict) and got[0] == got[2] == mine[0]
    assert got[1] == mine[1] == Failed("IndexError: tuple index out of range")


def test_optimize_and_compare_write_the_same_files_with_a_scheduler(
    scheduler: str, tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    common = ["--evaluations", "9", "--seed", "3"]
    a = dclayout("optimize", str(SITE), "--out", str(tmp_path / "local"), "--workers", "1", *common)
    b = dclayout("optimize", str(SITE), "--out", str(tmp_path / "far"), "--scheduler", scheduler, *common)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    name = "superpod-4su-optimized.toml"
    assert (tmp_path / "local" / name).read_bytes() == (tmp_path / "far" / name).read_bytes()
    ja = json.loads((tmp_path / "local" / "optimize.json").read_text())
    jb = json.loads((tmp_path / "far" / "optimize.json").read_text())
    for k in ("seconds", "search_seconds", "workers", "file"):
        ja.pop(k), jb.pop(k)
    assert ja == jb and ja["reproduced"] is True
    c = dclayout("compare", str(SITE), "--out", str(tmp_path / "cl"), "--jobs", "1")
    d = dclayout("compare", str(SITE), "--out", str(tmp_path / "cf"), "--scheduler", scheduler)
    assert c.returncode == 0 and d.returncode == 0, c.stderr + d.stderr
    assert (tmp_path / "cl" / "compare.csv").read_bytes() == (tmp_path / "cf" / "compare.csv").read_bytes()
    spec = tmp_path / "spec.toml"
    spec.write_text(f'sites = ["{SITE}"]\n[grid]\ndesign = ["rail", "mor"]\nnic = ["cx7", "cedar7"]\n')
    e = dclayout("sweep", str(spec), "--out", str(tmp_path / "sl"), "--workers", "1")
    f = dclayout("sweep", str(spec), "--out", str(tmp_path / "sf"), "--scheduler", scheduler)
    assert e.returncode == 0 and f.returncode == 0, e.stderr + f.stderr
    for name in ("sweep.csv", "sweep-pareto.svg"):
        assert (tmp_path / "sl" / name).read_bytes() == (tmp_path / "sf" / name).read_bytes()


def test_report_on_the_cluster_writes_the_same_pdf(
    scheduler: str, tmp_path: Path, dclayout: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    here = dclayout("report", str(SITE), "--out", str(tmp_path / "here"), "-j", "1")
    far = dclayout("report", str(SITE), "--out", str(tmp_path / "far"), "--scheduler", scheduler)
    assert here.returncode == 0 and far.returncode == 0, here.stderr + far.stderr
    name = "superpod-4su.pdf"
    assert (tmp_path / "here" / name).read_bytes() == (tmp_path / "far" / name).read_bytes()
    assert "1 of 1 report(s) written" in far.stderr
