"""Every shipped site, every export: the same bytes as the golden files (tests/golden/SITE/).

An intended change of the outputs is refreshed with ``python -m tests.golden.refresh`` and listed in
the commit; anything else that changes a byte fails here, naming the site and the files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.golden.refresh import SITES, expected, produce


@pytest.mark.parametrize("site", SITES, ids=[s.stem for s in SITES])
def test_every_export_of_every_shipped_site_is_as_golden(site: Path, tmp_path: Path) -> None:
    summary, hashes = expected(site)
    got = produce(site, tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text()) == summary
    changed = sorted(n for n in set(got) | set(hashes) if got.get(n) != hashes.get(n))
    assert not changed, f"{site.stem}: changed {changed}; refresh with python -m tests.golden.refresh"
