"""Fuzz the input checks: every `key = value` line of tests/data/small-site.toml (and a sample of the
catalog's) replaced by hostile values, each run through `dclayout validate` and `dclayout design` with
every export. Prints the tally: clean errors (both exit 2 with the same lines), designs (validate ok,
design exit 0/1 with every file written and read back), tracebacks, disagreements and designs with a file
that does not read back (all three must be 0).

    .venv/bin/python bench/fuzz_inputs.py [--catalog N] [--out DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import shutil
import tempfile
from pathlib import Path

from timing import ROOT  # noqa: E402  (bench/timing.py puts the repo on sys.path)

from layout.cli import main as cli  # noqa: E402

SITE_VALUES = [
    "true",
    '"x"',
    "1e308",
    "-1",
    "0",
    "[]",
    "{}",
    "[1]",
    '"\\u0000"',
    "1000000000",
    "3",
    "0.5",
    "nan",
]
SITE_VALUES += ['"B1"', "[[0,0],[1,0]]"]
# ids and names that clash in drawing names (B1-H1, case, the DXF model space) or look like formulas
SITE_VALUES += ['"b1"', '"H1-PWR"', '"B1-H2"', '"model"', '"-B1"', '"=1+2"']
CATALOG_VALUES = ["true", '"x"', "1e308", "-1", "0", "[]", "1", "3", "0.5", '"<&>"', "2"]
KEY_LINE = re.compile(r"^(\s*[a-z_]+ = )")


def _run(args: list[str]) -> tuple[object, str]:
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            return cli(args), err.getvalue()
    except BaseException as e:  # noqa: BLE001 - a traceback is what this counts
        return f"traceback {type(e).__name__}: {e}", err.getvalue()


def _unreadable(out: Path) -> str:
    """The first written file that does not read back (SVG as XML, DXF with ezdxf, XLSX with openpyxl,
    PDF with pypdf), or ""."""
    import xml.etree.ElementTree as ET

    import ezdxf
    import openpyxl
    import pypdf

    readers = {
        ".svg": ET.parse,
        ".dxf": ezdxf.readfile,
        ".xlsx": openpyxl.load_workbook,
        ".pdf": pypdf.PdfReader,
    }
    for f in sorted(out.iterdir()):
        try:
            reader = readers.get(f.suffix)
            if reader is not None:
                doc = reader(f)
                if f.suffix == ".pdf":
                    _ = [page.extract_text() for page in doc.pages[:1]]
        except Exception as e:  # noqa: BLE001 - any failure to read back is what this reports
            return f"{f.name}: {type(e).__name__}: {e}"
    return ""


def _case(site: Path, out: Path, templates: Path | None, what: str, tally: dict[str, int]) -> None:
    extra = ["--templates", str(templates)] if templates else []
    rv, ev = _run(["validate", str(site), *extra])
    rd, ed = _run(["design", str(site), *extra, "--out", str(out), "--dxf", "--pdf", "--csv", "--xlsx"])
    if isinstance(rv, str) or isinstance(rd, str):
        tally["tracebacks"] += 1
        print(f"TRACEBACK {what}: {rv if isinstance(rv, str) else rd}")
    elif rv == 0 and rd in (0, 1):
        tally["designs"] += 1
        bad = _unreadable(out)
        if bad:
            tally["corrupt files"] += 1
            print(f"CORRUPT {what}: {bad}")
    elif rv == rd == 2 and ev == ed:
        tally["clean errors"] += 1
    else:
        tally["disagreements"] += 1
        print(f"DISAGREE {what}: validate {rv} {ev[:120]!r}, design {rd} {ed[:120]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--catalog", type=int, default=150, help="catalog mutations to sample (seed 13)")
    parser.add_argument("--out", type=Path, default=None, help="work folder (default: a temporary one)")
    args = parser.parse_args()
    work = args.out or Path(tempfile.mkdtemp(prefix="dclayout-fuzz-"))
    work.mkdir(parents=True, exist_ok=True)
    tally = {"inputs": 0, "clean errors": 0, "designs": 0, "tracebacks": 0, "disagreements": 0}
    tally["corrupt files"] = 0
    lines = (ROOT / "tests/data/small-site.toml").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        m = KEY_LINE.match(line)
        for v in SITE_VALUES if m else []:
            n = tally["inputs"] = tally["inputs"] + 1
            site = work / f"site{n}.toml"
            site.write_text("\n".join([*lines[:i], m.group(1) + v, *lines[i + 1 :]]) + "\n", encoding="utf-8")
            _case(site, work / f"out{n}", None, f"{line.strip()} -> {v}", tally)
    cat = (ROOT / "rack_templates/catalog.toml").read_text(encoding="utf-8").splitlines()
    cands = [(i, v) for i, line in enumerate(cat) if KEY_LINE.match(line) for v in CATALOG_VALUES]
    random.Random(13).shuffle(cands)
    for i, v in cands[: args.catalog]:
        n = tally["inputs"] = tally["inputs"] + 1
        lib = work / f"lib{n}"
        shutil.copytree(ROOT / "rack_templates", lib)
        m = KEY_LINE.match(cat[i])
        assert m is not None
        (lib / "catalog.toml").write_text(
            "\n".join([*cat[:i], m.group(1) + v, *cat[i + 1 :]]) + "\n", encoding="utf-8"
        )
        _case(
            ROOT / "tests/data/small-site.toml",
            work / f"out{n}",
            lib,
            f"catalog {cat[i].strip()} -> {v}",
            tally,
        )
    print(", ".join(f"{k}: {n}" for k, n in tally.items()))
    if not args.out:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
