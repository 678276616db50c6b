"""Hostile inputs that cannot live in tests/data/bad/ as files (devices, FIFOs, huge or generated files,
Ctrl-C): each ends in one clean line and exit code 2 (130 for Ctrl-C), never a traceback or a hang."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from layout import load
from layout.cli import EXIT_INTERRUPTED, main

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "sites" / "superpod-4su.toml"


def _validate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(["validate", *args])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused_unread(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = _validate(capsys, "/dev/zero")  # reading it would never end
    assert (rc, out) == (2, "")
    assert (
        err
        == "/dev/zero: (file): is not a regular file (a device, FIFO or socket) (allowed: a path to a .toml text file)\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "site.toml"
    os.mkfifo(fifo)  # opening it for reading would block until a writer comes
    rc, _, err = _validate(capsys, str(fifo))
    assert rc == 2
    assert (
        err
        == f"{fifo}: (file): is not a regular file (a device, FIFO or socket) (allowed: a path to a .toml text file)\n"
    )


def test_a_folder_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, _, err = _validate(capsys, str(tmp_path))
    assert rc == 2
    assert err == f"{tmp_path}: (file): is a folder, not a file (allowed: a path to a .toml file)\n"


def test_a_file_above_the_size_cap_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"# " + b"x" * load.MAX_INPUT_BYTES + b"\n")
    rc, _, err = _validate(capsys, str(big))
    assert rc == 2
    assert err == f"{big}: (file): is larger than 16 MiB (allowed: an input file of at most 16 MiB)\n"
    at_cap = tmp_path / "at-cap.toml"  # exactly the cap is still read: a comment, an empty document
    at_cap.write_bytes(b"#" * (load.MAX_INPUT_BYTES - 1) + b"\n")
    assert load.read_toml(at_cap) == {}


def test_crlf_and_lone_cr_read_as_before(tmp_path: Path) -> None:
    f = tmp_path / "x.toml"
    f.write_bytes(b'a = 1\r\nb = "x"\rc = 2\n')
    assert load.read_toml(f) == {"a": 1, "b": "x", "c": 2}


def test_deep_nesting_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    rc, _, err = _validate(capsys, str(deep))
    assert rc == 2
    assert (
        err
        == f"{deep}: (syntax): TOML nested too deeply to read (allowed: tables and lists nested a few levels)\n"
    )


@pytest.mark.parametrize("command", ["validate", "design"])
def test_templates_that_is_a_file_or_missing(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    allowed = "(allowed: a folder with catalog.toml and rack templates)"
    out = ["--out", str(tmp_path / "out")] if command == "design" else []
    assert main([command, str(SITE), "--templates", str(SITE), *out]) == 2
    assert capsys.readouterr().err == f"{SITE}: (folder): is a file, not a folder {allowed}\n"
    missing = tmp_path / "nope"
    assert main([command, str(SITE), "--templates", str(missing), *out]) == 2
    assert capsys.readouterr().err == f"{missing}: (folder): folder not found {allowed}\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["validate", "design", "fabric"])
def test_ctrl_c_is_one_line_and_exit_130(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import importlib

    def interrupted(_args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(f"layout.commands.{command}"), "run", interrupted)
    args = {"validate": [str(SITE)], "design": [str(SITE)], "fabric": ["--gpus", "1024"]}[command]
    assert main([command, *args]) == EXIT_INTERRUPTED == 130
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "interrupted\n")


SMALL = ROOT / "tests" / "data" / "small-site.toml"


def _library(tmp_path: Path, edit: str = "", keep: tuple[str, ...] = ()) -> Path:
    """A copy of rack_templates/ (only the templates in ``keep`` if given) whose catalog has ``edit``
    applied: "OLD=>NEW" once."""
    import shutil

    lib = tmp_path / "lib"
    shutil.copytree(ROOT / "rack_templates", lib)
    if keep:
        for f in lib.glob("*.toml"):
            if f.name != "catalog.toml" and f.stem not in keep:
                f.unlink()
    if edit:
        cat = lib / "catalog.toml"
        old, new = edit.split("=>")
        text = cat.read_text(encoding="utf-8")
        assert text.count(old) == 1
        cat.write_text(text.replace(old, new), encoding="utf-8")
    return lib


def _both(capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str) -> tuple[int, str]:
    """validate and design of the same arguments: the same exit code and stderr (returned)."""
    rc_v = main(["validate", *args])
    err_v = capsys.readouterr().err
    rc_d = main(["design", *args, "--out", str(tmp_path / "out"), "--no-svg"])
    err_d = capsys.readouterr().err
    assert (rc_v, err_v) == (rc_d, err_d)
    return rc_v, err_v


QM9700_PORTS = "ports = 64                   # 32 OSFP"


@pytest.mark.parametrize("ports", [2, 3])
def test_a_switch_of_2_or_3_ports_is_refused_not_an_endless_loop(
    ports: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _library(tmp_path, f"{QM9700_PORTS}=>ports = {ports} # 32 OSFP")
    rc, err = _both(capsys, tmp_path, str(SMALL), "--templates", str(lib))
    assert rc == 2
    assert (
        err
        == f"{lib / 'catalog.toml'}: switch.qm9700.ports: must be >= 4, got {ports} (allowed: >= 4 and <= 1024)\n"
    )


def test_the_smallest_radix_allowed_sizes_to_a_clean_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a 4-port switch has 2 twin-port cages (the catalog's cage count must match its ports)
    cages = "cages = 32\nlanes_per_cage = 8           # 8 x 100G lanes per OSFP (NVIDIA)\nmgmt_ports = 1               # RJ45 management port, not a data cage (NVIDIA QM9700"
    lib = _library(tmp_path, f"{cages}=>{cages.replace('cages = 32', 'cages = 2', 1)}")
    cat = lib / "catalog.toml"
    cat.write_text(
        cat.read_text(encoding="utf-8").replace(QM9700_PORTS, "ports = 4 # 32 OSFP"), encoding="utf-8"
    )
    rc, err = _both(capsys, tmp_path, str(SMALL), "--templates", str(lib))
    assert rc == 2  # 256 GPUs on a radix-4 switch would need 7 tiers: refused by the sizer, in both
    assert err.startswith(f"{SMALL}: cluster.switch: a pod of 256 GPUs needs 7 tiers of qm9700 (radix 4)")


def test_an_empty_media_table_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lib = _library(tmp_path)
    cat = lib / "catalog.toml"
    kept, in_media = [], False
    for line in cat.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            in_media = line.startswith("[media.")
        if not in_media:
            kept.append(line)
    cat.write_text("\n".join(kept) + "\n[media]\n", encoding="utf-8")
    rc, err = _both(capsys, tmp_path, str(SMALL), "--templates", str(lib))
    assert rc == 2
    assert err == f"{cat}: media: needs at least 1 entry, got 0 (allowed: 1 or more [media.ID] tables)\n"


def test_an_empty_catalog_is_refused_section_by_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _library(tmp_path, keep=("net-leaf",))
    cat = lib / "catalog.toml"
    cat.write_text("", encoding="utf-8")
    rc, err = _both(capsys, tmp_path, str(SMALL), "--templates", str(lib))
    assert rc == 2
    assert err.splitlines()[:4] == [
        f"{cat}: {s}: required key is missing (allowed: add {s} = {{ ... }})"
        for s in ("server", "switch", "nic", "media")
    ]


def test_a_template_folder_without_the_network_racks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lib = _library(tmp_path, keep=("dgx-h100-x2", "dgx-h100-x4"))
    rc, err = _both(capsys, tmp_path, str(SMALL), "--templates", str(lib))
    assert rc == 2
    assert err == (
        f"{lib}: kind: no rack template of kind 'network' for the network racks "
        '(allowed: a template with kind = "network")\n'
    )


def test_ten_thousand_identical_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = SMALL.read_text(encoding="utf-8")
    row = text[text.index("[[row]]") : text.index("[[tray_block]]")]
    many = tmp_path / "rows.toml"
    many.write_text(text.replace(row, row * 10_000), encoding="utf-8")
    rc, err = _both(capsys, tmp_path, str(many))
    assert rc == 2
    assert (
        err
        == f"{many}: row: 10,000 [[row]] entries are more than the tool designs (allowed: at most 5,000 rows)\n"
    )
    some = tmp_path / "some.toml"  # under the cap: the overlaps are found and counted, not listed one a line
    some.write_text(text.replace(row, row * 3_000), encoding="utf-8")
    rc, err = _both(capsys, tmp_path, str(some))
    assert err == (
        f"{some}: row[1].origin: racks of this row overlap those of row[0] in hall B1/H1 "
        "(and 2,998 more rows like it) (allowed: rows whose racks do not overlap)\n"
    )


def test_rows_side_by_side_or_end_to_end_do_not_overlap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SMALL.read_text(encoding="utf-8")  # row[0]: 8 racks of 0.6 m from (4, 4) along x, 1.2 m deep
    rows = "".join(
        f'[[row]]\nhall = "B1/H1"\norigin = [{x}, {y}]\naxis = "{a}"\nracks = 8\ntemplate = "dgx-h100-x4"\n\n'
        for x, y, a in ((8.8, 4, "x"), (4, 5.2, "x"), (8.8, 5.2, "y"))  # touching, never sharing area
    )
    site = tmp_path / "touching.toml"
    site.write_text(text.replace("[[tray_block]]", rows + "[[tray_block]]"), encoding="utf-8")
    assert main(["validate", str(site)]) == 0, capsys.readouterr().err


def test_an_int_is_a_number_but_no_other_type_converts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = SMALL.read_text(encoding="utf-8")
    site = tmp_path / "ints.toml"
    site.write_text(
        text.replace("pue = 1.3", "pue = 1").replace("utility_mw = 3.0", "utility_mw = 3"), encoding="utf-8"
    )
    assert main(["validate", str(site)]) == 0, capsys.readouterr().err
    site.write_text(text.replace('revision = "A"', "revision = 1"), encoding="utf-8")
    assert main(["validate", str(site)]) == 2
    assert (
        capsys.readouterr().err == f'{site}: site.revision: must be text in quotes, got 1 (allowed: "...")\n'
    )


def test_max_row_racks_1_still_places_every_rack(tmp_path: Path) -> None:
    """One rack per row segment: the segment must still take the 800 mm network racks (it was 600 mm,
    the narrowest rack, and the network racks never fit)."""
    from layout import design
    from layout.load import load_site

    text = SMALL.read_text(encoding="utf-8")
    # without the user row and the tray block: the hall's column keeps a cross aisle's width from the
    # one-rack rows beside it, so the SU reaches x 23, past the tray block's line at x 20
    row = text[text.index("[[row]]") :]
    text = text.replace(row, "").replace("  id = ", "  max_row_racks = 1\n  id = ")
    assert text.count("max_row_racks = 1") == 3  # every hall
    site = tmp_path / "one-per-row.toml"
    site.write_text(text, encoding="utf-8")
    d = design.run(load_site(site))
    by = d.placement.racks_by_template()
    assert d.placement.racks_missing == 0
    assert by == {"dgx-h100-x4": 8, "net-leaf": 1, "net-spine": 1}
    assert not [v for v in d.violations if v.kind in ("capacity", "no_path")]
