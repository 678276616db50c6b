"""``dclayout push`` into a real Nautobot (started by tests/dcim/nautobot_up.sh, which prints the two
variables this needs): the counts of locations, racks, devices, interfaces, ports, cables and power
feeds read back over its REST API equal the design's, and a second push changes nothing. Skipped where
no Nautobot is running (the default CI run: starting one takes minutes)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from layout.export import dcim
from layout.export.dcim_push import TOKEN_ENV, http_client, read_counts
from layout.load import load_site

URL = os.environ.get("DCLAYOUT_NAUTOBOT_URL", "")
ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(
    not (URL and os.environ.get(TOKEN_ENV)),
    reason='no Nautobot: run eval "$(tests/dcim/nautobot_up.sh)" first (see that script)',
)


def _push(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "layout", "push", str(site), "--url", URL],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=3600,
    )


def test_superpod_pushed_twice_holds_the_design_and_the_second_changes_nothing() -> None:
    from layout import design

    site = ROOT / "sites" / "superpod-4su.toml"
    tables = dcim.dcim_tables(design.run(load_site(site)))
    first = _push(site)
    assert first.returncode == 0, first.stderr
    held = read_counts(http_client(URL, os.environ[TOKEN_ENV]), tables)
    want = dcim.counts(tables)
    assert held == {k: want[k] for k in held}
    assert held["devices"] == 223 and held["cables"] == 4691  # superpod-4su as designed today
    second = _push(site)
    assert second.returncode == 0, second.stderr
    assert "nothing to change" in second.stdout, second.stdout
