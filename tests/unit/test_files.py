"""layout.files: atomic writes (a symlink's mode does not pass to the new file), one run's files written
as a set (StagedSet: nothing changes until every file is written; what a killed run left is cleaned up
or finished by the next), and safe output names."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from layout import files
from layout.files import MANIFEST, STAGING_PREFIX, StagedSet, clean_up, safe_name, write_text


def _new_file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _listing(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_symlink_is_replaced_by_a_new_file_with_a_new_files_mode(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep")
    target.chmod(0o777)
    out = tmp_path / "out"
    out.mkdir()
    (out / "summary.json").symlink_to(target)
    write_text(out / "summary.json", "new")
    st = (out / "summary.json").lstat()
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == _new_file_mode()
    assert target.read_text() == "keep" and stat.S_IMODE(target.stat().st_mode) == 0o777


def test_a_replaced_regular_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("old")
    path.chmod(0o600)
    write_text(path, "new")
    assert path.read_text() == "new" and stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_set_appears_only_when_published(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old a")
    with StagedSet(tmp_path) as staged:
        write_text(staged.folder / "a.txt", "new a")
        write_text(staged.folder / "b.txt", "new b")
        assert staged.folder.parent == tmp_path and staged.folder.name.startswith(STAGING_PREFIX)
        assert (tmp_path / "a.txt").read_text() == "old a" and not (tmp_path / "b.txt").exists()
        assert staged.publish(["b.txt", "a.txt"]) == [tmp_path / "b.txt", tmp_path / "a.txt"]
    assert _listing(tmp_path) == {"a.txt": b"new a", "b.txt": b"new b"}  # no staging folder left


def test_a_failure_before_publish_leaves_the_previous_set_whole(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old a")
    (tmp_path / "b.txt").write_text("old b")
    with pytest.raises(RuntimeError, match="exporter broke"), StagedSet(tmp_path) as staged:
        write_text(staged.folder / "a.txt", "new a")
        raise RuntimeError("exporter broke")
    assert _listing(tmp_path) == {"a.txt": b"old a", "b.txt": b"old b"}


@pytest.mark.parametrize(
    ("names", "error"),
    [
        (["a.txt", "a.txt"], "same file name: a.txt"),
        (["a.txt", "missing.txt"], "'missing.txt' is not a file"),
        (["a.txt", "../a.txt"], "'../a.txt' is not a file"),
        (["a.txt", "d"], "is a folder"),
    ],
)
def test_publish_refuses_before_renaming_anything(tmp_path: Path, names: list[str], error: str) -> None:
    (tmp_path / "a.txt").write_text("old a")
    (tmp_path / "d").mkdir()
    with pytest.raises((ValueError, IsADirectoryError), match=error), StagedSet(tmp_path) as staged:
        write_text(staged.folder / "a.txt", "new a")
        write_text(staged.folder / "d", "a file where a folder is")
        staged.publish(names)
    assert (tmp_path / "a.txt").read_text() == "old a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "d"]


def test_clean_up_removes_a_killed_runs_unfinished_staging_and_temporary_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old a")
    stale = tmp_path / f"{STAGING_PREFIX}dead1234"
    stale.mkdir()
    (stale / "a.txt").write_text("half of a new set")
    (tmp_path / ".a.txt.k2j4_x9q.tmp").write_text("a killed atomic write")
    (tmp_path / ".keep").write_text("not ours")
    clean_up(tmp_path)
    assert _listing(tmp_path) == {".keep": b"not ours", "a.txt": b"old a"}


def test_clean_up_finishes_a_set_killed_while_renaming(tmp_path: Path) -> None:
    """The manifest says every file was written: the files not yet renamed are moved into place."""
    (tmp_path / "a.txt").write_text("new a")  # renamed before the kill
    (tmp_path / "b.txt").write_text("old b")
    stale = tmp_path / f"{STAGING_PREFIX}dead5678"
    stale.mkdir()
    (stale / "b.txt").write_text("new b")
    (stale / MANIFEST).write_text("a.txt\nb.txt\n")
    clean_up(tmp_path)
    assert _listing(tmp_path) == {"a.txt": b"new a", "b.txt": b"new b"}


def test_clean_up_leaves_a_live_runs_staging_folder_alone(tmp_path: Path) -> None:
    with StagedSet(tmp_path) as staged:
        write_text(staged.folder / "a.txt", "being written")
        clean_up(tmp_path)  # another run starting meanwhile
        assert (staged.folder / "a.txt").read_text() == "being written"
        staged.publish(["a.txt"])
    assert _listing(tmp_path) == {"a.txt": b"being written"}


def test_entering_a_set_cleans_up_first(tmp_path: Path) -> None:
    stale = tmp_path / f"{STAGING_PREFIX}dead0000"
    stale.mkdir()
    (stale / "x.txt").write_text("left by a killed run")
    with StagedSet(tmp_path) as staged:
        assert [p.name for p in tmp_path.iterdir()] == [staged.folder.name]


@pytest.mark.parametrize(
    ("stem", "safe"),
    [
        ("superpod-4su", "superpod-4su"),
        ("..", "__"),
        ("...", "___"),
        (".", "_"),
        (".hidden", "_hidden"),
        ("a.b", "a.b"),
        ("", "site"),
        ("e\x1b[31mx", "e_[31mx"),
        ("nul\x00tab\tnl\n", "nul_tab_nl_"),
        ("rtl\u202eoverride", "rtl_override"),
        ("bad\udc80byte", "bad_byte"),
        ("café <&>\"'=", "café <&>\"'="),
    ],
)
def test_safe_name(stem: str, safe: str) -> None:
    assert safe_name(stem) == safe


def test_locking_is_exclusive_between_two_opens(tmp_path: Path) -> None:
    """What keeps a live run's folder safe: the lock of one open refuses a second, and is freed on close."""
    fd = files._lock(tmp_path)
    try:
        with pytest.raises(BlockingIOError):
            files._lock(tmp_path, wait=False)
    finally:
        os.close(fd)
    os.close(files._lock(tmp_path, wait=False))


def test_a_settler_puts_each_file_in_place_with_its_bytes_when_the_block_is_left(tmp_path: Path) -> None:
    old = tmp_path / "b.bin"
    old.write_bytes(b"old")
    os.chmod(old, 0o600)
    with files.Settler() as settler:
        a = settler.write_bytes(tmp_path / "a.bin", b"A" * 100_000)
        tmp = settler.temp(old)
        tmp.write_bytes(b"new")
        settler.finish(tmp, old)
    assert a.read_bytes() == b"A" * 100_000
    assert old.read_bytes() == b"new"
    assert stat.S_IMODE(old.stat().st_mode) == 0o600  # a replaced file keeps its mode, as write_bytes
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.bin", "b.bin"]  # no temporary file left


def test_a_settlers_failure_is_raised_on_leaving_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()  # a folder where the file goes: the rename fails in the thread
    with pytest.raises(OSError), files.Settler() as settler:
        settler.write_bytes(tmp_path / "ok.bin", b"ok")
        settler.write_bytes(tmp_path / "dir", b"x")
    assert (tmp_path / "ok.bin").read_bytes() == b"ok"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "ok.bin"]
    assert not any((tmp_path / "dir").iterdir())
