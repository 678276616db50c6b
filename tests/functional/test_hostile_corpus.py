"""Every case of the hostile corpus (tests/data/hostile.py: memory, numbers at the edges, text and ids,
templates, and a control) through ``validate`` and ``design`` in one process under a 4 GB address-space
cap (tests/data/run_hostile.py): the expected outcome, the same from both commands, one line per problem
naming the file, and never a traceback, a MemoryError or a hang."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "data"))

import hostile  # noqa: E402


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("hostile")
    plan = []
    for i, case in enumerate(hostile.CASES):
        site, templates = hostile.materialise(case, tmp / f"c{i:03d}")
        plan.append(
            {"name": case.name, "site": str(site), "templates": str(templates), "out": str(tmp / f"o{i:03d}")}
        )
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "data" / "run_hostile.py")],
        input=json.dumps(plan),
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return {r["name"]: r for r in json.loads(done.stdout)}


def test_the_corpus_has_a_family_for_each_way_an_input_went_wrong() -> None:
    families = {c.family for c in hostile.CASES}
    assert families == {"memory", "numbers", "text", "templates", "control"}
    assert len({c.name for c in hostile.CASES}) == len(hostile.CASES) >= 25


@pytest.mark.parametrize("case", hostile.CASES, ids=[c.name for c in hostile.CASES])
def test_each_case_ends_as_expected_and_validate_agrees_with_design(
    case: Any, outcomes: dict[str, Any]
) -> None:
    got = outcomes[case.name]
    v, d = got["validate"], got["design"]
    for run in (v, d):
        assert not run.get("escaped") and not run.get("hang"), run
        assert "Traceback" not in run["stderr"] and "MemoryError" not in run["stderr"]
    want = 2 if case.expect == "refused" else 0
    assert (v["code"], d["code"]) == (want, want), (v["stderr"], d["stderr"])
    if case.expect == "refused":
        lines = v["stderr"].strip().splitlines()
        assert lines and lines == d["stderr"].strip().splitlines()
        site, templates = v["argv"][1], v["argv"][3]  # validate SITE --templates DIR
        assert all(line.startswith((site + ": ", templates + "/")) for line in lines), lines
        assert all("\x1b" not in line and "\x00" not in line for line in lines)  # nothing raw to a terminal


def test_the_readme_tells_the_tally() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    refused = sum(c.expect == "refused" for c in hostile.CASES)
    assert f"`tests/data/hostile.py` generates {len(hostile.CASES)} more" in readme
    assert (
        f"{refused} refused with the same lines from both, {len(hostile.CASES) - refused} designed" in readme
    )
