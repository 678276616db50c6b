"""A hostile corpus (issue 30), generated: one family per way an input went wrong in the fuzz, each case a
mutation of the shipped SuperPOD site, its catalog or its rack templates, with the outcome expected of
``validate`` and ``design`` alike: ``"refused"`` (exit 2, one line per problem naming the file and key)
or ``"designed"`` (exit 0). ``tests/functional/test_hostile_corpus.py`` runs every case under a 4 GB
address-space cap and checks that nothing ends in a traceback, a MemoryError or a hang.

    python tests/data/hostile.py          # the tally, case by case (what the test checks)
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "sites" / "superpod-4su.toml"
TEMPLATES = ROOT / "rack_templates"


@dataclass(frozen=True)
class Case:
    family: str
    name: str
    expect: str  # "refused" / "designed"
    site: Callable[[str], str] = lambda t: t  # the site text changed
    catalog: Callable[[str], str] = lambda t: t  # the catalog text changed
    template: tuple[str, Callable[[str], str]] | None = None  # (file name, its text changed)
    file_name: str = "site.toml"


def sub(pattern: str, repl: str, count: int = 1, literal: bool = True) -> Callable[[str], str]:
    """A text change that must apply (a case whose mutation silently missed would test nothing);
    ``repl`` taken as it is (``literal``) or as a regex template."""

    def change(text: str) -> str:
        out, n = re.subn(pattern, (lambda _m: repl) if literal else repl, text, count=count, flags=re.M)
        if not n:
            raise AssertionError(f"no match for {pattern!r}")
        return out

    return change


def in_table(table: str, key: str, value: str) -> Callable[[str], str]:
    """``key = value`` in the catalog table ``[table]`` (the first ``key`` after its header)."""
    return sub(rf"(^\[{re.escape(table)}\][^\[]*?^{key} = )[^\n#]*", rf"\g<1>{value} ", literal=False)


CASES: list[Case] = [
    # -- memory: sizes that pass a type check but would ask for gigabytes
    Case("memory", "switch-ports-in-the-millions", "refused", catalog=in_table("switch.qm9700", "ports", "4000000")),
    Case("memory", "storage-throughput-near-zero", "refused", catalog=in_table("node.storage-node", "throughput_gbps", "1e-9")),
    Case("memory", "busway-rating-near-zero", "refused", catalog=in_table("busway.bw-400a", "rating_kw", "1e-9")),
    Case("memory", "cdu-rating-near-zero", "refused", catalog=in_table("cdu.cdu-1200kw", "rating_kw", "1e-9")),
    Case("memory", "gpus-in-the-millions-in-one-hall", "refused", site=sub(r"^gpus = 1024", "gpus = 1_999_872")),
    Case(
        "memory",
        "twenty-thousand-columns",
        "refused",
        site=sub(
            r"^  columns = .*$",
            "  columns = ["
            + ", ".join(f"{{ at = [{3 + (i % 400) * 0.1:.1f}, {3 + (i // 400) * 0.4:.1f}], size_m = [0.01, 0.01] }}" for i in range(20_000))
            + "]",
        ),
    ),
    # -- numbers at the edges
    Case("numbers", "subnormal-link-mtbf", "refused", site=sub(r"^link_mtbf_years = 5.0", "link_mtbf_years = 5e-324")),
    Case("numbers", "storage-node-without-data-ports", "refused", catalog=in_table("node.storage-node", "data_ports", "0")),
    Case("numbers", "price-near-the-float-maximum", "refused", catalog=in_table("server.dgx-h100", "price_usd", "1e302")),
    Case("numbers", "size-near-the-float-maximum", "refused", site=sub(r"^utility_mw = 2.5", "utility_mw = 1.7e308")),
    Case("numbers", "tiny-wall-clearance", "designed", site=sub(r"^  wall_clearance_m = 1.0", "  wall_clearance_m = 1e-9")),
    Case("numbers", "zero-wall-clearance", "designed", site=sub(r"^  wall_clearance_m = 1.0", "  wall_clearance_m = 0")),
    Case("numbers", "negative-pue", "refused", site=sub(r"^pue = 1.35", "pue = -1.35")),
    Case("numbers", "nan-it-mw", "refused", site=sub(r"^it_mw = 1.8", "it_mw = nan")),
    # -- text and ids
    Case("text", "catalog-id-with-a-control-character", "refused", catalog=sub(r"^\[switch.qm9700\]", '[switch."qm\\u001b9700"]')),
    Case("text", "catalog-id-with-a-newline", "refused", catalog=sub(r"^\[switch.qm9700\]", '[switch."qm\\n9700"]')),
    Case("text", "catalog-id-with-a-tab", "refused", catalog=sub(r"^\[switch.qm9700\]", '[switch."qm\\t9700"]')),
    Case("text", "empty-catalog-id", "refused", catalog=sub(r"^\[switch.qm9700\]", '[switch.""]')),
    Case("text", "a-4000-character-switch-name", "refused", catalog=in_table("switch.qm9700", "name", '"' + "Q" * 4000 + '"')),
    Case("text", "site-name-with-escape", "refused", site=sub(r'^name = "SuperPOD 4-SU H100 hall"', 'name = "Super\\u001b[31mPOD"')),
    Case("text", "arabic-indic-digits-in-su-order", "refused", site=sub(r"^  max_row_racks = 16", '  max_row_racks = 16\n  su_order = ["SU\u0661", "SU2"]')),
    Case("text", "fullwidth-digits-in-su-order", "refused", site=sub(r"^  max_row_racks = 16", '  max_row_racks = 16\n  su_order = ["SU\uff11", "SU2"]')),
    Case("text", "a-240-character-site-file-name", "refused", file_name="s" * 240 + ".toml"),
    Case(
        "text",
        "template-ids-differing-in-case",
        "refused",
        template=("net-leaf-upper.toml", lambda t: t),
    ),
    # -- validate == design for templates and catalog parts
    Case("templates", "network-template-with-an-empty-slot-list", "refused", template=("net-leaf.toml", sub(r"^ru = \[4, 8, 12, 16, 20, 24, 28, 32\]", "ru = []"))),
    Case("templates", "network-template-without-a-switch-slot", "refused", template=("net-leaf.toml", sub(r'^device = "switch"', 'device = "patch-panel"'))),
    Case("templates", "network-template-slot-beyond-its-height", "refused", template=("net-leaf.toml", sub(r"^ru = \[4, 8, 12, 16, 20, 24, 28, 32\]", "ru = [4, 8, 12, 16, 20, 24, 28, 99]"))),
    Case("templates", "a-switch-with-a-servers-id", "refused", catalog=sub(r"^\[switch.qm9700\]", "[switch.dgx-h100]")),
    # -- controls: the shipped site as it is designs
    Case("control", "the-shipped-site", "designed"),
]


def materialise(case: Case, folder: Path) -> tuple[Path, Path]:
    """The case's site file and templates folder, written under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    templates = folder / "rack_templates"
    shutil.copytree(TEMPLATES, templates)
    cat = templates / "catalog.toml"
    cat.write_text(case.catalog(cat.read_text()))
    if case.template is not None:
        name, change = case.template
        if name == "net-leaf-upper.toml":  # a second template whose id differs from net-leaf's in case only
            text = (templates / "net-leaf.toml").read_text().replace('id = "net-leaf"', 'id = "NET-LEAF"')
            (templates / name).write_text(text)
        else:
            path = templates / name
            path.write_text(change(path.read_text()))
    site = folder / case.file_name
    site.write_text(case.site(SITE.read_text()))
    return site, templates


if __name__ == "__main__":  # pragma: no cover - the tally by hand
    import json
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        plan = []
        for i, case in enumerate(CASES):
            site, tpl = materialise(case, Path(tmp) / f"c{i:03d}")
            plan.append({"name": case.name, "site": str(site), "templates": str(tpl), "out": f"{tmp}/o{i:03d}"})
        runner = ROOT / "tests" / "data" / "run_hostile.py"
        done = subprocess.run([sys.executable, str(runner)], input=json.dumps(plan), capture_output=True, text=True)
        print(done.stdout, done.stderr)
