"""The site file (sites/*.toml): campus, buildings, halls, ducts, cluster, training, user rows, tray edits.

Geometry is in metres in site coordinates (x east, y north). Field-level checks live here; checks that
need geometry or the catalog (hall inside building, unknown template ids, ...) live in layout.load.
"""

import datetime
import re
from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, Field, field_validator, model_validator
from pydantic import Strict as StrictType
from pydantic_core import PydanticCustomError

from layout.model.base import Strict, Text

CAMPUS_EXTENT_M = 100_000.0  # every coordinate lies within 100 km of the site origin, either way


def _on_campus(v: float) -> float:
    if not -CAMPUS_EXTENT_M <= v <= CAMPUS_EXTENT_M:
        raise PydanticCustomError(
            "campus_extent",
            "coordinate {got} m is beyond any campus",
            {
                "got": f"{v:,.0f}",
                "allowed": f"-{CAMPUS_EXTENT_M:.0f} to {CAMPUS_EXTENT_M:.0f} m, 100 km either side of the origin",
            },
        )
    return v


Coord = Annotated[float, AfterValidator(_on_campus)]
Point = Annotated[tuple[Coord, Coord], StrictType(False)]  # TOML [x, y] is a list; its numbers stay strict
Cooling = Literal["air", "rear-door", "liquid"]
SU_ID_PATTERN = r"^p([0-9]{1,5})-u([0-9]{1,6})$"  # hall.su_order: pod 0's SU 3 is "p0-u03" (or "p0-u3"); ASCII digits only
SuId = Annotated[str, Field(pattern=SU_ID_PATTERN)]
MAX_SU_ORDER = 100_000  # more SUs than any site has (a 2M-GPU site has 7,813 of 256 GPUs)


def su_number(text: str) -> tuple[int, int]:
    """``hall.su_order``'s "p0-u03" as (pod, SU): numbers, so "p0-u3" is the same SU."""
    m = re.match(SU_ID_PATTERN, text)
    if m is None:
        raise ValueError(f"not an SU id: {text!r}")
    return int(m.group(1)), int(m.group(2))


def _calendar(v: str) -> str:
    try:
        datetime.date.fromisoformat(v)
    except ValueError:
        raise PydanticCustomError(
            "calendar_date",
            "must be a day of the calendar, got {got}",
            {"got": f'"{v}"', "allowed": "a real date YYYY-MM-DD"},
        ) from None
    return v


Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$"), AfterValidator(_calendar)]
# the issue status printed in the drawings' title block
Status = Literal["PRELIMINARY", "FOR COMMENT", "FOR APPROVAL", "FOR TENDER", "FOR CONSTRUCTION", "AS BUILT"]


class Revision(Strict):
    """One row of the drawings' revision table (``[[site.revisions]]``): its letter, day and what changed."""

    rev: Text = Field(min_length=1, max_length=20)
    date: Day
    description: Text = Field(default="", max_length=80)
    by: Text = Field(default="", max_length=20)


class SiteInfo(Strict):
    name: Text = Field(min_length=1, max_length=200)
    revision: Text = Field(default="A", max_length=20)
    date: str = Field(default="2026-01-01", pattern=r"^\d{4}-\d{2}-\d{2}$")
    # the title block's sign-off (initials or names), issue status and revision table; blank by default
    drawn_by: Text = Field(default="", max_length=30)
    checked_by: Text = Field(default="", max_length=30)
    approved_by: Text = Field(default="", max_length=30)
    status: Status = "PRELIMINARY"
    revisions: list[Revision] = Field(default_factory=list, max_length=50)
    utility_mw: float = Field(gt=0, le=5000)
    pue: float = Field(ge=1.0, le=3.0)
    electricity_usd_per_kwh: float = Field(ge=0, le=2.0)
    # the share of nameplate IT power drawn on average over the year (1.0: nameplate, as energy is
    # stated by default); energy and its cost scale with it, power budgets never do
    utilisation: float = Field(default=1.0, gt=0, le=1.0)

    @field_validator("date")
    @classmethod
    def _calendar_date(cls, v: str) -> str:
        return _calendar(v)


ColumnSide = Annotated[float, Field(ge=0.05, le=10)]  # a building column's side: 5 cm to 10 m


class Column(Strict):
    at: Point
    size_m: Annotated[tuple[ColumnSide, ColumnSide], StrictType(False)] = (0.6, 0.6)


class Keepout(Strict):
    polygon: list[Point]
    reason: Text = ""


class TraySpec(Strict):
    height_m: float = Field(default=2.9, gt=0.5, le=10)
    width_mm: float = Field(default=600, gt=50, le=2000)
    depth_mm: float = Field(default=100, gt=20, le=500)
    fill_limit: float = Field(default=0.5, gt=0, le=1.0)
    levels: int = Field(default=1, ge=1, le=6)  # stacked tray levels on rows and cross aisles
    trunk_width_mm: float | None = Field(default=None, gt=50, le=2000)  # trunks/risers; default width_mm
    trunk_levels: int = Field(default=1, ge=1, le=6)


Redundancy = Literal["2N", "N+1", "N"]


class HallPower(Strict):
    """A hall's power chain (layout/power/chain.py) and liquid loop (layout/power/cdus.py). Part ids name
    catalog entries (``[ups.ID]``, ``[switchboard.ID]``, ``[busway.ID]``, ``[cdu.ID]``); None: the first
    of that kind in the catalog, and for busways per row the smallest that carries the row (several
    side by side when none does)."""

    redundancy: Redundancy = "2N"
    ups: str | None = Field(default=None, max_length=64)
    switchboard: str | None = Field(default=None, max_length=64)
    busway: str | None = Field(default=None, max_length=64)
    cdu: str | None = Field(default=None, max_length=64)
    cdu_redundancy: Literal["N+1", "N"] = "N+1"


class Hall(Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,16}$")
    polygon: list[Point]
    cooling: Cooling = "air"
    max_rack_kw: float = Field(default=30.0, gt=0, le=300)
    floor_load_kg_m2: float = Field(default=1200.0, gt=0, le=10000)
    # "raised": racks stand on tiles, their feet and tiles checked below; "slab": the average only
    floor: Literal["raised", "slab"] = "raised"
    # concentrated load one rack foot may put on a raised floor (kg); its tile (square, m) and load (kg)
    point_load_kg: float = Field(default=680.0, gt=0, le=100000)
    tile_m: float = Field(default=0.6, gt=0.1, le=2.0)
    tile_load_kg: float = Field(default=1360.0, gt=0, le=100000)
    it_mw: float | None = Field(default=None, gt=0, le=2000)
    # heat the hall can reject; None: its floor area x the catalog's kW per m2 for its cooling
    cooling_mw: float | None = Field(default=None, gt=0, le=2000)
    # in a liquid hall, the heat its room units (CRAH, fan walls) can take from the air: what the cold
    # plates leave (PSUs, fans, drives) and every air-cooled rack; None: floor area x [cooling.air]
    air_cooling_mw: float | None = Field(default=None, gt=0, le=2000)
    power: HallPower = HallPower()
    row_axis: Literal["x", "y"] = "x"
    cold_aisle_m: float = Field(default=1.2, ge=0.6, le=5)
    hot_aisle_m: float = Field(default=1.2, ge=0.6, le=5)
    wall_clearance_m: float = Field(default=1.0, ge=0, le=20)
    cross_aisle_m: float = Field(default=1.2, ge=0.6, le=10)
    max_row_racks: int = Field(default=20, ge=1, le=200)
    # placement option: rack positions every row of the placer leaves free at its start (beside its first
    # rack, where the cable plant's row-end panels are) for fibre cabinets (layout/cable/cabinets.py);
    # None: as many as the design needs (0 unless the cabinets find no floor: layout/design.py)
    fibre_positions: int | None = Field(default=None, ge=0, le=50)
    columns: list[Column] = Field(default_factory=list)
    keepouts: list[Keepout] = Field(default_factory=list)
    tray: TraySpec = TraySpec()
    # placement option (layout.place.anchors): the hall is laid out around this point: its spine racks in
    # the row cells nearest it, its SU blocks outward from it; default: SU rows from the middle line with
    # a spine row in the middle (dclayout optimize writes it)
    spine_at: Point | None = None
    # placement option (layout.place.assign): the order the hall's SUs are laid in, by pod and SU number
    # ("p0-u03": pod 0's SU 3, as in the leaf ids); SUs of the hall not listed follow in their own order,
    # listed SUs that the placer puts in another hall are passed over (dclayout optimize writes it)
    su_order: list[SuId] | None = Field(default=None, min_length=1, max_length=MAX_SU_ORDER)


class Building(Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_-]{1,16}$")
    footprint: list[Point]
    entry: Point | None = None
    it_mw: float | None = Field(default=None, gt=0, le=5000)
    # placement option (layout.place.anchors): the MDF racks stand in the row cells nearest this point,
    # in whichever hall of the building they are; default: the entry (dclayout optimize writes it)
    mdf_at: Point | None = None
    hall: list[Hall] = Field(min_length=1)


class Duct(Strict):
    from_: str = Field(alias="from")
    to: str
    path: list[Point] | None = Field(default=None, min_length=2)
    conduits: int = Field(default=16, ge=1, le=500)  # 100 mm conduits in the duct bank


class Networks(Strict):
    """The networks around the GPUs and what they reach (layout.fabric). The booleans switch a network
    on; the rest sizes it, with defaults: storage servers by read bandwidth per GPU (or a count), CPU
    nodes (head, login, UFM fabric managers, management), OOB uplinks to an aggregation in the MDF."""

    storage: bool = False
    frontend: bool = False
    oob: bool = False
    frontend_switch: str | None = None  # None: sn5600 (Ethernet) when the catalog has it, else cluster.switch
    storage_switch: str | None = None  # None: as the frontend
    oob_aggregation: str | None = None  # None: sn2700 when the catalog has it, else no uplinks
    oob_uplinks: int = Field(default=2, ge=0, le=16)  # per OOB switch, to as many aggregation switches
    storage_node: str = "storage-node"
    storage_nodes: int | None = Field(default=None, ge=0, le=1_000_000)  # None: by storage_gbps_per_gpu
    storage_gbps_per_gpu: float = Field(default=4.0, ge=0, le=1000)
    cpu_node: str = "cpu-node"
    head_nodes: int = Field(default=2, ge=0, le=1000)
    login_nodes: int | None = Field(default=None, ge=0, le=10_000)  # None: 1 per 2,048 GPUs, at least 2
    management_nodes: int = Field(default=3, ge=0, le=1000)
    ufm_node: str = "ufm-appliance"
    ufm_nodes: int | None = Field(default=None, ge=0, le=1000)  # None: 2 on an InfiniBand fabric, else 0


class Cluster(Strict):
    gpus: int = Field(gt=0, le=2_000_000)
    server: str
    rack: str
    rack_low_density: str | None = None
    switch: str
    design: Literal["rail", "mor"] = "rail"
    nic: str = "cx7"
    pod_gpus: int = Field(default=0, ge=0, le=2_000_000)
    tiers: int | None = Field(default=None, ge=1, le=4)
    oversubscription: float = Field(default=1.0, ge=1.0, le=64.0)
    link_mtbf_years: float = Field(default=5.0, ge=0.01, le=100)
    pod_spans_buildings: bool = False
    # false: the pods are islands no backend tier joins; traffic between them goes over the frontend
    # network (seed 000's hybrid InfiniBand + front end), which must then be on
    join_pods: bool = True
    # NVL72 rack systems on rails (layout.fabric.model.NVL72_WIRINGS): "ra" as the DGX SuperPOD GB200 RA
    # wires them, "packed" tray position i on rail i; None: "ra" on InfiniBand, else "packed"
    nvl72_wiring: Literal["ra", "packed"] | None = None
    networks: Networks = Networks()


def changed_cluster(data: dict[str, Any], updates: dict[str, Any]) -> dict[str, Any]:
    """A ``[cluster]`` table (as the site file gives it) changed by ``updates``, as ``compare``, ``sweep``
    and ``optimize`` change a site's cluster: a ``link_mtbf_years`` that the site gave describes the
    site's NIC, so a change of NIC drops it (the new NIC's own MTBF applies) unless ``updates`` give one."""
    out = {**data, **updates}
    nic_before = data.get("nic", Cluster.model_fields["nic"].default)
    if "nic" in updates and updates["nic"] != nic_before and "link_mtbf_years" not in updates:
        out.pop("link_mtbf_years", None)
    return out


class Training(Strict):
    step_s: float = Field(default=2.0, gt=0, le=3600)
    checkpoint_every_steps: int = Field(default=100, ge=1, le=1_000_000)
    hbm_gb: float = Field(default=80.0, gt=0, le=10000)


MAX_ROW_RACKS = 200  # racks of one [[row]]


class UserRow(Strict):
    """A user-placed row (``[[row]]``): ``racks`` racks side by side along ``axis`` from ``origin``, the
    row's corner of smallest x and y. ``front``: "+" the fronts face +y (axis x, rotation 0) or +x (axis
    y, rotation 270), "-" they face -y (rotation 180) or -x (rotation 90). One ``template`` for every
    rack, or ``templates``, one per rack in order along the axis (then ``racks`` is its length and
    ``template`` is not given; layout.load.geometry check_rows says so). Racks of different depths align
    their fronts, as the placer's do: the row is as deep as its deepest rack."""

    hall: str = Field(pattern=r"^[A-Za-z0-9_-]+/[A-Za-z0-9_-]+$")
    origin: Point
    axis: Literal["x", "y"] = "x"
    front: Literal["+", "-"] = "+"
    racks: int = Field(ge=1, le=MAX_ROW_RACKS)
    template: str | None = None
    templates: list[str] | None = Field(default=None, min_length=1, max_length=MAX_ROW_RACKS)

    def rack_templates(self) -> list[str]:
        """Each rack's template, in order along the axis."""
        if self.templates is not None:
            return list(self.templates)
        if self.template is None:  # the loader refuses such a row (check_rows)
            raise ValueError("a [[row]] needs template or templates")
        return [self.template] * self.racks


class TrayEdit(Strict):
    hall: str = Field(pattern=r"^[A-Za-z0-9_-]+/[A-Za-z0-9_-]+$")
    line: list[Point] = Field(min_length=2)


class SiteMargins(Strict):
    """Engineering margins that override the catalog's ``[margins]`` (layout.model.catalog.Margins) for
    this site: any of them; the rest are the catalog's."""

    power_factor: float | None = Field(default=None, ge=0.5, le=1.0)
    tap_off: float | None = Field(default=None, gt=0.1, le=1.0)
    busway: float | None = Field(default=None, gt=0.1, le=1.0)
    switchboard: float | None = Field(default=None, gt=0.1, le=1.0)
    ups: float | None = Field(default=None, gt=0.1, le=1.0)
    cdu: float | None = Field(default=None, gt=0.1, le=1.0)


class Plant(Strict):
    """The cable plant (layout/cable/plant.py): where the patch panels stand. ``row``: at each row's
    end, trunks row to row; ``rack``: in every rack with links to other rows (the network racks and the
    GPU racks), trunks rack to rack; ``none``: every link one point-to-point cord."""

    panels: Literal["row", "rack", "none"] = "row"


class Geo(Strict):
    """Where the site's origin (0, 0) is on the Earth, for BIM and GIS (``--ifc``): its latitude and
    longitude (WGS 84), the height of the hall floor above sea level, and the bearing of the site's +y
    axis east of true north; optionally a projected map grid (``crs``, e.g. ``EPSG:32632``) and the
    origin's easting and northing on it."""

    latitude_deg: float = Field(ge=-90, le=90)
    longitude_deg: float = Field(ge=-180, le=180)
    elevation_m: float = Field(default=0.0, ge=-500, le=9000)
    # the site's +y axis, in degrees clockwise from true north (0: +y points north)
    north_deg: float = Field(default=0.0, gt=-360, lt=360)
    crs: str | None = Field(default=None, pattern=r"^EPSG:[0-9]{4,6}$")
    eastings_m: float | None = Field(default=None, ge=-1e8, le=1e8)
    northings_m: float | None = Field(default=None, ge=-1e8, le=1e8)

    @model_validator(mode="after")
    def _grid_needs_its_origin(self) -> Self:
        given = [self.eastings_m is not None, self.northings_m is not None]
        if self.crs is not None and not all(given):
            raise PydanticCustomError(
                "geo_grid",
                "a map grid needs the origin's eastings_m and northings_m on it",
                {"allowed": "crs with eastings_m and northings_m, or none of the three"},
            )
        if self.crs is None and any(given):
            raise PydanticCustomError(
                "geo_grid",
                "eastings_m and northings_m need the map grid (crs) they are on",
                {"allowed": 'crs = "EPSG:..." with eastings_m and northings_m, or none of the three'},
            )
        return self


class SiteFile(Strict):
    format: Literal[1] = 1
    site: SiteInfo
    building: list[Building] = Field(min_length=1)
    duct: list[Duct] = Field(default_factory=list)
    cluster: Cluster
    training: Training = Training()
    row: list[UserRow] = Field(default_factory=list)
    tray_block: list[TrayEdit] = Field(default_factory=list)
    tray_add: list[TrayEdit] = Field(default_factory=list)
    margins: SiteMargins = SiteMargins()
    plant: Plant = Plant()
    geo: Geo | None = None

    def halls(self) -> list[tuple[Building, Hall]]:
        return [(b, h) for b in self.building for h in b.hall]
