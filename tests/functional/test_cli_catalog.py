"""`dclayout catalog`: every part of the catalog with the keys DESIGN.md names, as JSON and as a table."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path

from layout.load import DEFAULT_TEMPLATES_DIR

KEYS = {
    "servers": {"id", "name", "gpus", "power_kw", "cooling", "height_ru"},
    "switches": {"id", "name", "ports", "port_gbps", "protocol", "cages"},
    "nics": {"id", "ports", "port_gbps"},
    "media": {"id", "class", "gbps", "reach_m", "price_usd"},
}
SECTIONS = {"servers": "server", "switches": "switch", "nics": "nic", "media": "media"}


def test_json_lists_every_catalog_part_with_its_key_figures(
    dclayout: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    res = dclayout("catalog", "--json")
    assert res.returncode == 0 and res.stderr == ""
    out = json.loads(res.stdout)
    raw = tomllib.loads((DEFAULT_TEMPLATES_DIR / "catalog.toml").read_text(encoding="utf-8"))
    assert set(out) == set(KEYS)
    for kind, keys in KEYS.items():
        assert [p["id"] for p in out[kind]] == list(raw[SECTIONS[kind]]), kind  # every part, catalog order
        for p in out[kind]:
            assert keys <= set(p), (kind, p["id"])
    # figures read independently from the TOML
    q = next(p for p in out["switches"] if p["id"] == "q3400")
    assert (q["ports"], q["port_gbps"], q["protocol"], q["cages"]) == (144, 800, "infiniband", 72)
    assert next(p for p in out["switches"] if p["id"] == "sn5600")["protocol"] == "ethernet"
    gb = next(p for p in out["servers"] if p["id"] == "gb300-nvl72")
    assert (gb["gpus"], gb["cooling"], gb["power_kw"]) == (
        72,
        "liquid",
        raw["server"]["gb300-nvl72"]["power_kw"],
    )
    cx8 = next(p for p in out["nics"] if p["id"] == "cx8")
    assert (cx8["ports"], cx8["port_gbps"]) == (1, 800)
    m = next(p for p in out["media"] if p["id"] == "smf-dr-800")
    assert (m["class"], m["gbps"], m["reach_m"]) == ("smf", [800], 500.0)


def test_table_names_every_part_and_a_custom_catalog_is_read(
    dclayout: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    res = dclayout("catalog")
    assert res.returncode == 0
    for part in ("dgx-b300", "gb300-nvl72", "q3450-ld", "sn5610", "cx8-2x400", "mmf-800"):
        assert part in res.stdout
    assert "switches (8)" in res.stdout
    shutil.copytree(DEFAULT_TEMPLATES_DIR, tmp_path / "t")
    cat = tmp_path / "t" / "catalog.toml"
    cat.write_text(cat.read_text().replace("[switch.sn2700]", "[switch.my-oob-agg]"))
    res = dclayout("catalog", "--json", "--templates", str(tmp_path / "t"))
    assert "my-oob-agg" in [p["id"] for p in json.loads(res.stdout)["switches"]]


def test_a_missing_catalog_is_one_clean_line(
    dclayout: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    res = dclayout("catalog", "--templates", "/nonexistent-dir")
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
