"""The names the drawings give a building and a hall, in one place: the hall plans' file names
(``STEM-B1-H1.svg``) and the DXF layouts (``B1``, ``B1-H1``, ``B1-H1-PWR``).

Ids may hold ``-``, so two halls can come to one name (building ``B1-H1`` hall ``X`` and building ``B1``
hall ``H1-X`` are both ``B1-H1-X``), and file systems (macOS, Windows) and DXF layouts ignore case (``B1``
is ``b1``). :func:`clashes` finds each name that an earlier building or hall already has, so the loader
refuses the ids with one line before any export runs, and ``validate`` and ``design`` say the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

# a DXF document's model space layout is "Model": no paper space sheet may be named so
RESERVED = ("Model",)
POWER_SUFFIX = "-PWR"
SLD_SUFFIX = "-SLD"


def building_sheet(building: str) -> str:
    """The DXF layout of a building's own sheet (drawn when the site has several buildings)."""
    return building


def hall_sheet(building: str, hall: str) -> str:
    """A hall's plan: its DXF layout and the tail of its SVG file name (``STEM-B1-H1.svg``)."""
    return f"{building}-{hall}"


def power_sheet(building: str, hall: str) -> str:
    """The DXF layout of a hall's power chain sheet."""
    return hall_sheet(building, hall) + POWER_SUFFIX


def sld_sheet(building: str, hall: str) -> str:
    """The DXF layout of a hall's single-line diagram."""
    return hall_sheet(building, hall) + SLD_SUFFIX


def names_of(building: str, halls: Iterable[str]) -> Iterator[tuple[str | None, str, str]]:
    """Every name a building and its halls (ids ``halls``) take in the drawings, as (the hall's id, or
    None for the building itself; what is named, in words; the name)."""
    yield None, f"the sheet of building {building}", building_sheet(building)
    for h in halls:
        yield h, f"the plan of hall {building}/{h}", hall_sheet(building, h)
        yield h, f"the power sheet of hall {building}/{h}", power_sheet(building, h)
        yield h, f"the single-line diagram of hall {building}/{h}", sld_sheet(building, h)


def clashes(named: Iterable[tuple[str, str]]) -> Iterator[tuple[int, str | None]]:
    """Given (what, name) pairs in file order, each later pair whose name (ignoring case) is reserved or
    taken by an earlier pair: (its index, what took the name first, or None for a reserved name)."""
    taken: dict[str, str | None] = {r.casefold(): None for r in RESERVED}
    for i, (what, name) in enumerate(named):
        key = name.casefold()
        if key in taken:
            yield i, taken[key]
        else:
            taken[key] = what
