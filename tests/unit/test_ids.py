"""One rule for ids (issue 30): catalog keys and template ids are non-empty ASCII ids, unique ignoring
case across the kinds that share a namespace; numbers in ids are ASCII digits. validate and design give
the same one line for each (both load through layout.load)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "sites" / "superpod-4su.toml"


def _templates(tmp_path: Path, catalog_edit: tuple[str, str] | None = None) -> Path:
    folder = tmp_path / "rack_templates"
    shutil.copytree(ROOT / "rack_templates", folder)
    if catalog_edit:
        cat = folder / "catalog.toml"
        text = cat.read_text()
        assert catalog_edit[0] in text
        cat.write_text(text.replace(catalog_edit[0], catalog_edit[1], 1))
    return folder


def _both(folder: Path, site: Path = SITE) -> list[str]:
    """validate's and design's stderr lines (they must agree) and exit code 2 from each."""
    out = []
    for cmd in (["validate", str(site)], ["design", str(site), "--out", str(folder.parent / "out")]):
        done = subprocess.run(
            [sys.executable, "-m", "layout", *cmd, "--templates", str(folder)], capture_output=True, text=True
        )
        assert done.returncode == 2, done
        out.append(done.stderr.strip().splitlines())
    assert out[0] == out[1]
    return out[0]


@pytest.mark.parametrize(
    ("new", "says"),
    [
        (
            '[switch."qm\\u001b9700"]',
            r"switch.qm\x1b9700: must be an id, got the id 'qm\x1b9700' holds '\x1b'",
        ),
        ('[switch."qm 9700"]', "switch.qm 9700: must be an id, got the id 'qm 9700' holds ' '"),
        ('[switch."qm\\t9700"]', r"switch.qm\t9700: must be an id, got the id 'qm\t9700' holds '\t'"),
        ('[switch.""]', "must be an id, got an empty id"),
        ("[switch.DGX-H100]", 'switch.DGX-H100: the id "DGX-H100" is already server "dgx-h100"'),
    ],
)
def test_a_catalog_key_that_is_not_an_id_is_one_line(tmp_path: Path, new: str, says: str) -> None:
    lines = _both(_templates(tmp_path, ("[switch.qm9700]", new)))
    assert len(lines) >= 1 and says in lines[0], lines
    assert "\x1b" not in "".join(lines) and "\t" not in "".join(lines)  # nothing raw reaches a terminal


def test_two_template_ids_that_differ_only_in_case_clash(tmp_path: Path) -> None:
    folder = _templates(tmp_path)
    text = (folder / "net-leaf.toml").read_text().replace('id = "net-leaf"', 'id = "NET-LEAF"', 1)
    (folder / "net-leaf-upper.toml").write_text(text)
    lines = _both(folder)
    assert any("duplicate template id" in line and "the same ignoring case" in line for line in lines), lines


def test_su_order_takes_ascii_digits_only(tmp_path: Path) -> None:
    site = tmp_path / "s.toml"
    text = SITE.read_text()
    assert 'id = "H1"' in text
    site.write_text(text.replace('id = "H1"', 'id = "H1"\nsu_order = ["p0-u\u0660\u0661"]', 1))
    lines = _both(_templates(tmp_path), site)
    assert any("su_order" in line for line in lines), lines


@pytest.mark.parametrize("slots", ["", '[[slot]]\ndevice = "leaf"\nru = [4]\n'], ids=["empty", "switchless"])
def test_a_network_template_without_room_for_the_switch_is_refused_by_validate_as_by_design(
    tmp_path: Path, slots: str
) -> None:
    """An empty or switchless slot list (a slot above the rack is the loader's own line): one line naming
    the template's file, from validate as from design."""
    folder = _templates(tmp_path)
    path = folder / "net-leaf.toml"
    text = path.read_text()
    head = text[: text.index("[[slot]]")]
    path.write_text(head + slots)
    lines = _both(folder)
    want = f"{path}: slot: network rack template 'net-leaf' has no switch slot"
    assert any(line.startswith(want) for line in lines), lines
