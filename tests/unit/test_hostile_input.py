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
