"""Run hostile cases (tests/data/hostile.py) through ``dclayout validate`` and ``design`` in this one
process, under a 4 GB address-space cap and a per-command alarm: a JSON list on stdin
(``name, site, templates, out``), a JSON list of outcomes on stdout (exit codes, stderr, and whether a
traceback, a MemoryError or a timeout happened)."""

from __future__ import annotations

import contextlib
import io
import json
import resource
import signal
import sys
import traceback

CAP_BYTES = 4 * 2**30
ALARM_S = 120


class Hang(Exception):
    pass


def _alarm(_sig: int, _frame: object) -> None:
    raise Hang


def run(argv: list[str]) -> dict[str, object]:
    from layout.cli import main

    out, err = io.StringIO(), io.StringIO()
    result: dict[str, object] = {"argv": argv}
    signal.alarm(ALARM_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
        result["code"] = code
    except Hang:
        result["code"], result["hang"] = None, True
    except SystemExit as e:
        result["code"] = e.code
    except BaseException as e:  # noqa: BLE001 - the point is to see anything escaping main
        result["code"], result["escaped"] = None, f"{type(e).__name__}: {traceback.format_exc()[-500:]}"
    finally:
        signal.alarm(0)
    result["stderr"] = err.getvalue()
    return result


def main() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))
    signal.signal(signal.SIGALRM, _alarm)
    plan = json.loads(sys.stdin.read())
    results = []
    for case in plan:
        tpl = ["--templates", case["templates"]]
        v = run(["validate", case["site"], *tpl])
        d = run(["design", case["site"], "--out", case["out"], "--no-svg", *tpl])
        results.append({"name": case["name"], "validate": v, "design": d})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
