"""The README's generated blocks: what the commands print and the shipped sites' headline figures, as the
code gives them today. ``tests/functional/test_readme.py`` checks them; after an intended change:

    .venv/bin/python -m tests.readme_blocks        # rewrites the blocks in README.md

A block is an HTML comment naming what makes it, then a fenced block (or a table) up to the end marker::

    <!-- output: dclayout design sites/superpod-4su.toml -->
    ```console
    $ dclayout design sites/superpod-4su.toml
    ...
    ```
    <!-- end -->

    <!-- figures: superpod-4su campus-100k -->
    | figure | ... |
    <!-- end -->

Times printed by a command ("in 1.2 s") are written as they came and compared as ``N s``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"<!-- (output|figures): (.+?) -->\n(.*?)<!-- end -->\n", re.S)
SECONDS = re.compile(r"\b\d+(\.\d+)? s\b")
FIGURE_ROWS = (
    "gpus", "racks", "it_mw", "facility_mw", "switches_all", "optics_total", "cable_km", "copper_share_pct",
    "cost_total_usd", "cost_without_power_chain_usd", "ttff_min", "ttff_all_links_min", "tray_fill_max_pct",
    "links_cross_building", "violations",
)  # fmt: skip


def command_output(command: str) -> str:
    """What ``command`` (a dclayout command line) prints, run in a scratch folder holding links to the
    shipped sites and templates, as a ```console block; ``... | tail -n K`` keeps its last K lines."""
    command, _, tail = command.partition(" | tail -n ")
    args = command.split()
    assert args[0] == "dclayout", command
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("sites", "rack_templates"):
            os.symlink(ROOT / name, Path(tmp) / name)
        env = {**os.environ, "COLUMNS": "110", "TERM": "dumb", "NO_COLOR": "1"}
        done = subprocess.run(
            [sys.executable, "-m", "layout", *args[1:]], capture_output=True, text=True, cwd=tmp, env=env
        )
    out = done.stdout.rstrip("\n").split("\n")
    if tail:
        out = out[-int(tail) :]
    lines = [f"$ {command}{' | tail -n ' + tail if tail else ''}", *out]
    return "```console\n" + "\n".join(line.rstrip() for line in lines) + "\n```\n"


def figures_table(stems: list[str]) -> str:
    """The headline figures of shipped sites side by side, as layout.figures labels and writes them."""
    from layout import design as design_mod
    from layout import figures
    from layout.load import load_site

    designs = [design_mod.run(load_site(ROOT / "sites" / f"{s}.toml")) for s in stems]
    head = "| figure | " + " | ".join(f"`{s}`" for s in stems) + " |"
    rule = "|---|" + "---:|" * len(stems)
    rows = [
        f"| {figures.SPEC[k].label} | " + " | ".join(d.figures[k].text for d in designs) + " |"
        for k in FIGURE_ROWS
    ]
    return "\n".join([head, rule, *rows]) + "\n\n"


def make(kind: str, what: str) -> str:
    return command_output(what) if kind == "output" else figures_table(what.split())


def same(a: str, b: str) -> bool:
    return SECONDS.sub("N s", a) == SECONDS.sub("N s", b)


def stale(text: str) -> list[tuple[str, str, str]]:
    """(what, in the README, made now) of each block that differs from what the code gives now."""
    out = []
    for m in BLOCK.finditer(text):
        now = make(m.group(1), m.group(2))
        if not same(m.group(3), now):
            out.append((m.group(2), m.group(3), now))
    return out


def refresh() -> int:
    text = README.read_text(encoding="utf-8")
    changed = 0

    def sub(m: re.Match[str]) -> str:
        nonlocal changed
        now = make(m.group(1), m.group(2))
        if same(m.group(3), now):
            return m.group(0)
        changed += 1
        return f"<!-- {m.group(1)}: {m.group(2)} -->\n{now}<!-- end -->\n"

    text = BLOCK.sub(sub, text)
    README.write_text(text, encoding="utf-8")
    return changed


if __name__ == "__main__":
    print(f"{refresh()} block(s) rewritten")
