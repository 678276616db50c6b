"""`dclayout design --slurm`: Slurm's topology files, read by a real Slurm.

The tree file is loaded by a real ``slurmctld`` (Debian's, 22.05) started on 127.0.0.1 with a generated
``slurm.conf``; ``scontrol show topology`` must list every backend switch of the design with its children
and every server as a node. Host lists are expanded by ``scontrol show hostnames`` (Slurm's own parser).
The block topology (Slurm 23.11+, which Debian's 22.05 lacks) is checked against the grammar of
``topology.conf(5)`` and ``topology.yaml(5)``. Where Slurm is missing and cannot be installed (no apt-get,
or not root) the tests that need it are skipped with a message; .ci/run installs it.
"""

from __future__ import annotations

import getpass
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from layout.export import slurm

NEEDS = "slurmctld and scontrol (Debian packages slurmctld and slurm-client)"


def _install_slurm() -> str | None:
    """Install Slurm with apt-get where this is root on Debian; None when it is there, else why not."""
    if shutil.which("slurmctld") and shutil.which("scontrol"):
        return None
    if not shutil.which("apt-get"):
        return f"{NEEDS} are not installed and there is no apt-get to install them"
    if os.geteuid() != 0:
        return f"{NEEDS} are not installed and only root can install them"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-q", "slurmctld", "slurm-client"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:  # a fresh machine's package lists may be empty: once more after an update
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, timeout=900)
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0 or not shutil.which("slurmctld"):
        return f"{NEEDS} could not be installed: {done.stderr.strip()[-300:]}"
    return None


@pytest.fixture(scope="module")
def scontrol(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """scontrol's path, with SLURM_CONF set for this module to a minimal slurm.conf (scontrol reads one
    even to expand a host list)."""
    why = _install_slurm()
    if why is not None:
        pytest.skip(why)
    path = shutil.which("scontrol")
    assert path is not None
    conf = tmp_path_factory.mktemp("slurm") / "slurm.conf"
    conf.write_text("ClusterName=dclayout\nSlurmctldHost=localhost(127.0.0.1)\n")
    mp = pytest.MonkeyPatch()
    mp.setenv("SLURM_CONF", str(conf))
    yield path
    mp.undo()


def expand(scontrol: str, hostlist: str) -> list[str]:
    """A Slurm host list as Slurm expands it."""
    done = subprocess.run(
        [scontrol, "show", "hostnames", hostlist], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout.split()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def slurm_conf(folder: Path, nodes: list[str], plugin: str = "topology/tree") -> Path:
    """A minimal slurm.conf for a controller alone on this machine: every node at 127.0.0.1, one CPU."""
    lines = [
        "ClusterName=dclayout",
        "SlurmctldHost=localhost(127.0.0.1)",
        f"SlurmctldPort={_free_port()}",
        f"SlurmUser={getpass.getuser()}",
        "AuthType=auth/none",
        "CredType=cred/none",
        f"StateSaveLocation={folder / 'state'}",
        f"SlurmdSpoolDir={folder / 'spool'}",
        f"SlurmctldPidFile={folder / 'slurmctld.pid'}",
        f"SlurmctldLogFile={folder / 'slurmctld.log'}",
        "SelectType=select/cons_tres",
        f"TopologyPlugin={plugin}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "MpiDefault=none",
        "MailProg=/bin/true",
        *(f"NodeName={n} NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN" for n in nodes),
        "PartitionName=all Nodes=ALL Default=YES State=UP",
    ]
    (folder / "state").mkdir(parents=True, exist_ok=True)
    (folder / "spool").mkdir(parents=True, exist_ok=True)
    conf = folder / "slurm.conf"
    conf.write_text("\n".join(lines) + "\n")
    return conf


@pytest.fixture
def slurmctld(scontrol: str) -> Iterator[Callable[[Path], dict[str, str]]]:
    """``start(conf)``: start ``slurmctld -D`` on ``conf`` and wait until it answers; returns the
    environment that points scontrol at it. Every controller started is stopped at teardown."""
    started: list[subprocess.Popen[bytes]] = []

    def start(conf: Path) -> dict[str, str]:
        exe = shutil.which("slurmctld")
        assert exe is not None
        log = open(conf.parent / "slurmctld.out", "wb")  # noqa: SIM115 - closed with the process
        proc = subprocess.Popen([exe, "-D", "-f", str(conf)], stdout=log, stderr=subprocess.STDOUT)
        log.close()
        started.append(proc)
        env = {**os.environ, "SLURM_CONF": str(conf)}
        deadline = time.monotonic() + 120  # only stops a hung wait
        while True:
            ping = subprocess.run([scontrol, "ping"], env=env, capture_output=True, text=True, timeout=60)
            if "UP" in ping.stdout:
                return env
            out = (conf.parent / "slurmctld.out").read_text(errors="replace")
            assert proc.poll() is None, f"slurmctld stopped:\n{out[-2000:]}"
            assert time.monotonic() < deadline, f"slurmctld did not answer:\n{out[-2000:]}"
            time.sleep(0.5)

    yield start
    for proc in started:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def parse_topology(text: str) -> dict[str, dict[str, str]]:
    """``scontrol show topology`` as {switch: {key: value}}."""
    out = {}
    for line in text.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if "SwitchName" in fields:
            out[fields.pop("SwitchName")] = fields
    return out


def _design_links(design: Any) -> tuple[dict[str, set[str]], list[str]]:
    """Backend switch -> the devices it links to below it; and the server ids."""
    dev, links = design.fabric.devices, design.fabric.links
    ids = dev["device_id"].astype(str).tolist()
    below: dict[str, set[str]] = {}
    be = links[(links["network"] == "backend").to_numpy()]
    for a, b in zip(be["a"].tolist(), be["b"].tolist(), strict=True):
        below.setdefault(ids[b], set()).add(ids[a])
    servers = [i for i, r in zip(ids, dev["role"].tolist(), strict=True) if r == "server"]
    return below, servers


@pytest.mark.parametrize("stem", ["superpod-4su", "gb200-hall"])
def test_slurmctld_reads_every_switch_and_node(
    stem: str, design_of: Callable[[str], Any], slurmctld: Any, scontrol: str, tmp_path: Path
) -> None:
    design = design_of(stem)
    (written,) = [p for p in slurm.write_slurm(design, tmp_path, stem) if p.name.endswith("-topology.conf")]
    below, servers = _design_links(design)
    conf = slurm_conf(tmp_path, servers)
    shutil.copy(written, tmp_path / "topology.conf")  # Slurm reads it beside slurm.conf
    env = slurmctld(conf)
    shown = subprocess.run(
        [scontrol, "show", "topology"], env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    topo = parse_topology(shown)
    assert set(topo) == set(below), "every backend switch of the design, and no other"
    reached: set[str] = set()
    for name, fields in topo.items():
        if fields["Level"] == "0":
            got = set(expand(scontrol, fields["Nodes"]))
            reached |= got
        else:
            got = set(expand(scontrol, fields["Switches"]))
        assert got == below[name], name
    assert reached == set(servers) and len(servers) == design.fabric.servers
    # every node is known to the controller under its server id
    nodes = subprocess.run(
        [scontrol, "show", "node", "-o"], env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert sorted(re.findall(r"^NodeName=(\S+)", nodes, re.M)) == sorted(servers)
    print(f"{stem}: slurmctld {len(topo)} switches, {len(reached)} nodes")


def test_hostlists_expand_as_slurm_expands_them(scontrol: str) -> None:
    names = ["srv-00000", "srv-00001", "srv-00002", "srv-00007", "srv-100000", "be-leaf-p0-u12-r9",
             "be-leaf-p0-u12-r10", "be-leaf-p0-u12-r11", "mgmt", "n9", "n09"]  # fmt: skip
    text = slurm.hostlist(names)
    assert text.count("[") == 2  # srv-[...] and be-leaf-p0-u12-r[10-11]
    assert sorted(expand(scontrol, text)) == sorted(names)


def test_one_hostlist_entry_per_name_without_slurm() -> None:
    assert slurm.hostlist(["srv-00003", "srv-00001", "srv-00002", "x"]) == "srv-[00001-00003],x"
    assert slurm.hostlist(["s5"]) == "s5"
    assert slurm.hostlist(["a1", "a3", "a4"]) == "a[1,3-4]"


BLOCK_LINE = re.compile(r"BlockName=(?P<name>[^\s=#]+) Nodes=(?P<nodes>[^\s=#]+)")
SIZES_LINE = re.compile(r"BlockSizes=(?P<sizes>\d+(,\d+)*)")


def _check_sizes(sizes: list[int], blocks: list[list[str]]) -> None:
    """topology.conf(5): each block has at least the base size's nodes; each larger size is the one
    before times a power of two."""
    assert sizes and all(len(b) >= sizes[0] for b in blocks)
    for lo, hi in zip(sizes, sizes[1:], strict=False):
        ratio, rest = divmod(hi, lo)
        assert rest == 0 and ratio > 1 and ratio & (ratio - 1) == 0, sizes


def test_nvl72_blocks_follow_the_documented_grammar(
    design_of: Callable[[str], Any], scontrol: str, tmp_path: Path
) -> None:
    """The NVLink domains of an NVL72 hall, in both block formats: each domain one block, every server in
    exactly one block, block sizes as the man pages require, the tree in the YAML as in topology.conf."""
    import yaml  # PyYAML (a dependency of Dask)

    design = design_of("gb200-hall")
    files = {p.name: p for p in slurm.write_slurm(design, tmp_path, "gb200-hall")}
    assert set(files) == {
        "gb200-hall-topology.conf",
        "gb200-hall-topology-block.conf",
        "gb200-hall-topology.yaml",
    }
    _, servers = _design_links(design)
    blocks: list[list[str]] = []
    sizes: list[int] = []
    for line in files["gb200-hall-topology-block.conf"].read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        if m := BLOCK_LINE.fullmatch(line):
            blocks.append(expand(scontrol, m["nodes"]))
        else:
            m = SIZES_LINE.fullmatch(line)
            assert m is not None and not sizes, line  # one BlockSizes line
            sizes = [int(s) for s in m["sizes"].split(",")]
    per_domain = design.fabric.nvlink_gpus // design.inputs.catalog.server[design.fabric.server].gpus
    assert [len(b) for b in blocks] == [per_domain] * (len(servers) // per_domain)
    assert sorted(n for b in blocks for n in b) == sorted(servers)
    _check_sizes(sizes, blocks)
    assert sizes[-1] <= max(design.fabric.su_servers, per_domain)

    doc = yaml.safe_load(files["gb200-hall-topology.yaml"].read_text())
    assert isinstance(doc, list) and len(doc) == 2
    for topo in doc:
        assert next(iter(topo)) == "topology"  # "must be the first attribute"
        assert len({"block", "flat", "tree"} & set(topo)) == 1
        assert set(topo) <= {"topology", "cluster_default", "block", "flat", "tree"}
    assert [t.get("cluster_default", False) for t in doc].count(True) == 1
    block = doc[0]["block"]
    assert block["block_sizes"] == sizes
    assert [expand(scontrol, b["nodes"]) for b in block["blocks"]] == blocks
    assert len({b["block"] for b in block["blocks"]}) == len(blocks)
    below, _ = _design_links(design)
    switches = doc[1]["tree"]["switches"]
    assert {s["switch"] for s in switches} == set(below)
    for s in switches:
        assert len(s["switch"]) <= 64 and (("nodes" in s) != ("children" in s))
        assert set(expand(scontrol, s.get("nodes") or s["children"])) == below[s["switch"]]


def test_no_block_topology_without_nvlink_racks(design_of: Callable[[str], Any], tmp_path: Path) -> None:
    """A DGX H100 hall (one NVLink domain per server, four servers a rack): the tree alone."""
    written = slurm.write_slurm(design_of("superpod-4su"), tmp_path, "sp")
    assert [p.name for p in written] == ["sp-topology.conf"]


def test_same_design_same_bytes(design_of: Callable[[str], Any], tmp_path: Path) -> None:
    design = design_of("gb200-hall")
    first = [p.read_bytes() for p in slurm.write_slurm(design, tmp_path / "a", "g")]
    second = [p.read_bytes() for p in slurm.write_slurm(design, tmp_path / "b", "g")]
    assert first == second


def test_the_cli_writes_them(dclayout: Any, tmp_path: Path) -> None:
    done = dclayout("design", "sites/gb200-hall.toml", "--no-svg", "--slurm", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "gb200-hall-topology-block.conf",
        "gb200-hall-topology.conf",
        "gb200-hall-topology.yaml",
        "summary.json",
    ]


def test_the_readme_example_is_what_it_writes(design_of: Callable[[str], Any], tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    example = readme.split("$ head -3 outputs/superpod-4su/superpod-4su-topology.conf\n", 1)[1]
    shown = example.split("```", 1)[0].splitlines()
    (written,) = slurm.write_slurm(design_of("superpod-4su"), tmp_path, "superpod-4su")
    assert shown == written.read_text().splitlines()[:3]
