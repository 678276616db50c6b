"""The command line's own words: `--version`, and a mistyped option or command said in one line with a
did-you-mean and exit 2, as site-file keys are."""

from __future__ import annotations

import pytest

from layout import __version__
from layout.cli import main

DESIGN_OPTIONS = (
    "--csv, --dcim, --dot, --dxf, --help, --ifc, --labels, --no-svg, --out, --parquet, --pdf, --slurm, --strict, --svg, "
    "--templates, --turnup, --usd, --xlsx"
)


def _fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    out, err = capsys.readouterr()
    assert (e.value.code, out) == (2, "")
    assert err.count("\n") == 1, err  # one line, no usage block
    return err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert (e.value.code, capsys.readouterr().out) == (0, f"dclayout {__version__}\n")


def test_version_is_the_packages_metadata() -> None:
    """pyproject takes the version from layout.__version__: the installed metadata says the same."""
    from importlib.metadata import version

    assert version("dclayout") == __version__


@pytest.mark.parametrize(
    "argv",
    [
        ["design", "sites/superpod-4su.toml", "--pfd"],
        ["design", "--pfd", "sites/superpod-4su.toml"],
        ["design", "--pfd"],  # the typo is said, not the SITE it displaced
        ["design", "sites/superpod-4su.toml", "--pfd=yes"],
    ],
)
def test_mistyped_option_gets_did_you_mean(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert _fails(capsys, *argv) == (
        f'dclayout design: --pfd: unknown option, did you mean "--pdf"? (allowed: {DESIGN_OPTIONS})\n'
    )


def test_option_with_nothing_close_lists_what_is_allowed(capsys: pytest.CaptureFixture[str]) -> None:
    assert _fails(capsys, "design", "x.toml", "--zzz") == (
        f"dclayout design: --zzz: unknown option (allowed: {DESIGN_OPTIONS})\n"
    )


def test_mistyped_command_gets_did_you_mean(capsys: pytest.CaptureFixture[str]) -> None:
    assert _fails(capsys, "desing", "x.toml", "--pfd") == (
        'dclayout: desing: unknown command, did you mean "design"? '
        "(allowed: validate, tui, fabric, design, report, compare, catalog, optimize, sweep, push)\n"
    )


def test_mistyped_top_level_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert _fails(capsys, "--verison") == (
        'dclayout: --verison: unknown option, did you mean "--version"? (allowed: --help, --version)\n'
    )


def test_one_argument_too_many(capsys: pytest.CaptureFixture[str]) -> None:
    assert _fails(capsys, "design", "a.toml", "b.toml") == "dclayout design: b.toml: unexpected argument\n"


def test_other_argparse_errors_are_one_line_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert _fails(capsys, "fabric") == "dclayout fabric: the following arguments are required: --gpus\n"
    assert _fails(capsys, "fabric", "--gpus", "many") == (
        "dclayout fabric: argument --gpus: invalid int value: 'many'\n"
    )


def test_abbreviated_option_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's unique prefixes stay accepted (`--js` is `--json`): only words no option starts with are
    refused."""
    assert main(["fabric", "--gpus", "8", "--js"]) == 0
    assert capsys.readouterr().out.startswith('{"gpus": 8,')
