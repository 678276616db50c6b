"""A site file read, validated and cross-checked against its catalog and rack templates: `Inputs`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from layout.errors import InputError, Problem
from layout.load.catalog import DEFAULT_TEMPLATES_DIR, read_library
from layout.load.checks import cross_check
from layout.load.messages import in_file_order, pydantic_problems
from layout.load.parts import parts_from_raw, parts_of
from layout.load.toml import read_toml
from layout.model import Catalog, RackTemplate, SiteFile


@dataclass(frozen=True)
class Inputs:
    """A validated site with the catalog and rack templates it refers to."""

    site: SiteFile
    catalog: Catalog
    templates: dict[str, RackTemplate]
    path: Path
    templates_dir: Path = field(default=DEFAULT_TEMPLATES_DIR)

    @property
    def stem(self) -> str:
        return self.path.stem


def load_site(path: str | Path, templates_dir: Path | None = None) -> Inputs:
    """Read, validate and cross-check a site file. Raises InputError listing every problem found:
    those of the catalog and rack templates first, then the site's in file order."""
    path = Path(path)
    tdir = templates_dir or _templates_dir_for(path)
    catalog, templates, problems = read_library(tdir)
    try:
        data = read_toml(path)
    except InputError as e:
        raise InputError(problems + e.problems) from None
    site, site_problems = _site_problems(data, path, catalog, templates)
    problems += site_problems
    if problems or site is None or catalog is None or templates is None:
        raise InputError(problems)
    return Inputs(site=site, catalog=catalog, templates=templates, path=path, templates_dir=tdir)


def site_from_data(
    data: dict[str, Any], path: Path, catalog: Catalog, templates: dict[str, RackTemplate], tdir: Path
) -> Inputs:
    site, problems = _site_problems(data, path, catalog, templates)
    if problems or site is None:
        raise InputError(problems)
    return Inputs(site=site, catalog=catalog, templates=templates, path=path, templates_dir=tdir)


def _templates_dir_for(site_path: Path) -> Path:
    """The rack templates a site file uses without ``--templates``: a ``rack_templates/`` folder with a
    catalog.toml in the site's own folder, else in its parent (a project of ``sites/`` beside
    ``rack_templates/``), else the ones shipped with the package."""
    folder = site_path.resolve().parent
    for beside in (folder / "rack_templates", folder.parent / "rack_templates"):
        if (beside / "catalog.toml").is_file():
            return beside
    return DEFAULT_TEMPLATES_DIR


def _site_choices(
    catalog: Catalog | None, templates: Mapping[str, RackTemplate] | None
) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if catalog is not None:
        out |= {
            "cluster.server": sorted(catalog.server),
            "cluster.switch": sorted(catalog.switch),
            "cluster.nic": sorted(catalog.nic),
        }
    if templates is not None:
        gpu = sorted(t for t, tpl in templates.items() if tpl.kind == "gpu")
        out |= {"cluster.rack": gpu, "cluster.rack_low_density": gpu, "row[*].template": sorted(templates)}
    return out


def _site_problems(
    data: dict[str, Any], path: Path, catalog: Catalog | None, templates: Mapping[str, RackTemplate] | None
) -> tuple[SiteFile | None, list[Problem]]:
    """The validated site (or None) and every problem: pydantic's and the cross checks, in file order;
    a file name too long to name its outputs first."""
    file = str(path)
    named = _file_name_problems(path)
    try:
        site = SiteFile.model_validate(data)
    except ValidationError as e:
        problems = named + pydantic_problems(e, SiteFile, file, _site_choices(catalog, templates))
        bad: set[tuple[Any, ...]] = set()
        for err in e.errors():
            loc = tuple(err["loc"])
            bad.update(loc[:i] for i in range(1, len(loc) + 1))
        problems += cross_check(parts_from_raw(data, bad), catalog, templates, file)
        return None, in_file_order(problems, data)
    return (None if named else site), named + in_file_order(
        cross_check(parts_of(site), catalog, templates, file), data
    )


# the outputs are named after the site file's stem plus a sheet name (building and hall ids, 64
# characters each at most) and a staging suffix; file systems allow 255 bytes a name
MAX_STEM_BYTES = 100


def _file_name_problems(path: Path) -> list[Problem]:
    size = len(path.stem.encode("utf-8", "surrogatepass"))
    if size <= MAX_STEM_BYTES:
        return []
    return [
        Problem(
            str(path),
            "(file)",
            f"the file name is {size} bytes before .toml: the outputs named after it (NAME-B1-H1.svg, ...) "
            "would pass the file system's 255 bytes",
            f"a file name of at most {MAX_STEM_BYTES} bytes before .toml",
        )
    ]


def check_site(
    site: SiteFile, catalog: Catalog, templates: Mapping[str, RackTemplate], file: str
) -> list[Problem]:
    """Geometry and cross-reference checks of a validated site (in check order, not file order)."""
    return cross_check(parts_of(site), catalog, templates, file)
