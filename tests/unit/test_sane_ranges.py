"""Every number has a sane range (issue 30): a value outside it is one clean line naming the key, never
a MemoryError, a division by zero or an overflow later."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from layout.load.catalog import read_library

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    # (the catalog line, the same line with a hostile value, the dotted key named, what it says)
    ("rating_kw = 287.5", "rating_kw = 1e-9", "busway.bw-400a.rating_kw", "must be >= 1"),
    ("mtbf_years = 20.0", "mtbf_years = 5e-324", "media.dac.mtbf_years", "must be >= 0.01"),
    ("reach_m = 3.0 ", "reach_m = 1e300 ", "media.dac.reach_m", "must be <= 200000"),
    ("throughput_gbps = 400", "throughput_gbps = 1e-12", "throughput_gbps", "must be >= 1"),
    ("data_ports = 2               # 2 x 400G", "data_ports = 0  # 2 x 400G", "data_ports", "must be >= 1"),
    ("ports = 64 ", "ports = 5000000 ", "switch.qm9700.ports", "must be <= 1024"),
    ("price_usd = 150 ", "price_usd = 1e302 ", "media.dac.price_usd", "must be <= 1000000000"),
]


@pytest.mark.parametrize(("line", "hostile", "key", "says"), CASES, ids=[c[2] for c in CASES])
def test_a_number_outside_its_range_is_one_line_naming_the_key(
    tmp_path: Path, line: str, hostile: str, key: str, says: str
) -> None:
    folder = tmp_path / "rack_templates"
    shutil.copytree(ROOT / "rack_templates", folder)
    cat = folder / "catalog.toml"
    text = cat.read_text()
    assert line in text, line
    cat.write_text(text.replace(line, hostile, 1))
    catalog, _, problems = read_library(folder)
    assert catalog is None
    hits = [str(p) for p in problems if key in p.key]
    assert len(hits) == 1 and says in hits[0], [str(p) for p in problems]
