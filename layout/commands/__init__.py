"""Sub-commands of the `dclayout` CLI, one module each (see layout/cli.py), and the pieces they share."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from layout.load import Inputs


def add_templates_option(p: Any) -> None:
    """The ``--templates DIR`` option of every command that reads a site file."""
    p.add_argument(
        "--templates",
        default=None,
        metavar="DIR",
        help="rack template + catalog folder (default: beside the site)",
    )


def scheduler_address(text: str) -> str:
    """``--scheduler``'s value, checked before anything is loaded (layout.engine.cluster.check_address):
    a text that is no scheduler address raises the InputError the CLI says in one line, exit code 2
    (argparse lets it through: it turns only ValueError and TypeError into its own message)."""
    from layout.engine.cluster import check_address

    check_address(text)
    return text


def add_scheduler_option(p: Any) -> None:
    """``--scheduler ADDR``, for the commands that fan out over Dask (layout.engine)."""
    p.add_argument(
        "--scheduler",
        default=None,
        type=scheduler_address,
        metavar="ADDR",
        help="run on an existing Dask cluster, e.g. tcp://10.0.0.5:8786 (default: a local cluster of "
        "this machine's cores); the results are the same either way",
    )


def templates_dir(templates: str | None) -> Path | None:
    """The ``--templates`` value as a folder; None: the one beside the site."""
    return Path(templates) if templates else None


def load_inputs(site: str, templates: str | None) -> Inputs:
    """Load and validate a site file with the ``--templates`` folder (InputError if anything is bad)."""
    from layout.load import load_site

    return load_site(site, templates_dir(templates))
