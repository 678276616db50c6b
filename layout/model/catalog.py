"""The part catalog: servers, switches, NICs, cable/optics media, rack parts (rack_templates/catalog.toml)."""

from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from layout.model.base import Id, Strict, Text

MediaClass = Literal["dac", "aec", "mmf", "smf", "coherent", "utp"]
MEDIA_CLASSES: tuple[MediaClass, ...] = ("dac", "aec", "mmf", "smf", "coherent", "utp")
COPPER_CLASSES: tuple[MediaClass, ...] = ("dac", "aec", "utp")
CageForm = Literal["osfp", "qsfp", "sfp", "rj45"]
PowerCordForm = Literal["c13", "c19"]  # IEC 60320: C13/C14 (10 A) or C19/C20 (16 A) PSU cords
CAGE_FORMS: tuple[CageForm, ...] = ("osfp", "qsfp", "sfp", "rj45")
# A price above this is a typo (the dearest rack system is a few million): a BOM of such parts would not
# add up to a finite total (1e308 x 2 is inf), and every export prints that total.
MAX_PRICE_USD = 1e9  # any one price: a part dearer than $1bn is a typing error
# the sane range of every number a catalog gives, stated once (issue 30: a value outside is one clean line)
MAX_GBPS = 3200  # a port or link speed: 3.2 Tb/s is beyond the fastest port shipped
MIN_MTBF_YEARS = 0.01  # ~3.65 days: a part failing more often than that is no part (and 1/MTBF stays finite)
MAX_REACH_M = 200_000.0  # 200 km: beyond long-haul coherent optics between campuses
MIN_RATING_KW = 1.0  # busways, tap-offs, UPS blocks, CDUs: below 1 kW a rack's feed needs thousands of them


class ServerSpec(Strict):
    name: Text
    gpus: int = Field(gt=0, le=1024)
    height_ru: int = Field(gt=0, le=60)
    depth_mm: float = Field(gt=0, le=2000)
    weight_kg: float = Field(gt=0, le=5000)
    power_kw: float = Field(gt=0, le=500)
    cooling: Literal["air", "rear-door", "liquid"]
    backend_ports: int = Field(gt=0, le=1024)
    backend_port_gbps: int = Field(ge=1, le=MAX_GBPS)
    storage_ports: int = Field(ge=0, le=256, default=0)  # a whole-rack system: every tray's ports
    frontend_ports: int = Field(ge=0, le=256, default=0)
    oob_ports: int = Field(ge=0, le=256, default=1)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)
    # how the ports are caged (layout.cable.ports): backend NIC cages take the NIC option's ports_per_module
    # ports each (8 single-port cages for 8 PCIe CX-7, 4 twin-port cages for Cedar-7) unless the system
    # has its own (``backend_ports_per_cage``: a DGX H100's 8 ports leave through 4 twin-port OSFP cages
    # whatever the NIC option); frontend and storage ports one per cage; oob_ports are RJ45 management ports
    backend_ports_per_cage: int | None = Field(default=None, gt=0, le=8)
    backend_cage: CageForm = "osfp"
    backend_lanes: int = Field(gt=0, le=16, default=8)
    frontend_cage: CageForm = "qsfp"
    storage_cage: CageForm = "qsfp"
    # the reference design around the system (layout.fabric): its scalable unit (SU) in servers (None:
    # one leaf group), the rails its backend ports spread over (None: one rail per port; an NVL72's 72
    # ports over 18 rails, one per compute tray position, 4 ports each), servers per rack in the RA's
    # layout (SU racks without a site), GPUs of one NVLink domain (never split; None: the server's GPUs)
    su_servers: int | None = Field(default=None, gt=0, le=100_000)
    rails: int | None = Field(default=None, gt=0, le=1024)
    servers_per_rack: int = Field(default=1, gt=0, le=64)
    nvlink_gpus: int | None = Field(default=None, gt=0, le=100_000)
    frontend_port_gbps: int = Field(default=400, ge=1, le=MAX_GBPS)
    storage_port_gbps: int = Field(default=400, ge=1, le=MAX_GBPS)
    # the share of its heat a liquid-cooled system puts into the coolant (the rest to the room's air);
    # None: the [cooling.liquid] figure
    liquid_fraction: float | None = Field(default=None, ge=0, le=1)
    # power cords from its PSUs to the rack PDUs (None: 2, one per side); ``power_cord``: their form
    power_cords: int | None = Field(default=None, ge=0, le=64)
    power_cord: PowerCordForm = "c19"

    @property
    def ports_per_rail(self) -> int:
        return self.backend_ports // self.rails if self.rails else 1


class SwitchSpec(Strict):
    name: Text
    # at least 4: a Clos of radix 2 or 3 never converges (one port down, one up); 4 is the smallest
    ports: int = Field(ge=4, le=1024)
    port_gbps: int = Field(ge=1, le=MAX_GBPS)
    ports_per_cage: int = Field(gt=0, le=8, default=2)
    # data cages: ``cages`` x ``ports_per_cage`` = ``ports`` (checked by layout.load.check_catalog);
    # management ports are separate RJ45 ports, never data cages
    cage: CageForm = "osfp"
    cages: int | None = Field(default=None, gt=0, le=1024)  # None: ports / ports_per_cage
    lanes_per_cage: int = Field(gt=0, le=16, default=8)
    mgmt_ports: int = Field(ge=0, le=8, default=1)
    # uplink ports beside the data cages (SN2201: 4 x 100G QSFP28 above its 48 RJ45 ports)
    uplink_ports: int = Field(ge=0, le=16, default=0)
    uplink_cage: CageForm = "qsfp"
    protocol: Literal["infiniband", "ethernet"] = "ethernet"
    cooling: Literal["air", "liquid"] = "air"
    # the fastest link a cage's ports gang into (SN5600: 128 x 400G or 64 x 800G); None: port_gbps
    max_link_gbps: int | None = Field(default=None, ge=1, le=MAX_GBPS)
    height_ru: int = Field(gt=0, le=20)
    weight_kg: float = Field(gt=0, le=500)
    power_w_copper: float = Field(gt=0, le=50000)
    power_w_optics: float = Field(gt=0, le=50000)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)

    power_cords: int | None = Field(default=None, ge=0, le=64)  # PSU cords (None: 2, one per side)
    power_cord: PowerCordForm = "c13"

    @property
    def fastest_gbps(self) -> int:
        return self.max_link_gbps or self.port_gbps

    @property
    def data_cages(self) -> int:
        """Data cages: ``cages``, or as many as ``ports`` fill when the catalog does not say."""
        return self.cages if self.cages is not None else -(-self.ports // self.ports_per_cage)


class NodeSpec(Strict):
    """A CPU or storage node the design buys around the GPUs: storage servers, head / login nodes,
    fabric managers (UFM), management servers. ``data_ports`` go to the storage network (storage
    nodes; the frontend when there is no storage network) or the frontend (CPU nodes)."""

    name: Text
    kind: Literal["storage", "cpu"]
    height_ru: int = Field(gt=0, le=20)
    depth_mm: float = Field(default=800, gt=0, le=2000)
    weight_kg: float = Field(gt=0, le=500)
    power_kw: float = Field(gt=0, le=50)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)
    data_ports: int = Field(default=2, ge=1, le=16)  # a node with no data port serves nothing
    data_port_gbps: int = Field(default=400, ge=1, le=MAX_GBPS)
    data_cage: CageForm = "qsfp"
    oob_ports: int = Field(default=1, ge=0, le=4)
    throughput_gbps: float | None = Field(
        default=None, ge=1, le=100_000
    )  # storage: read throughput it delivers
    power_cords: int | None = Field(default=None, ge=0, le=64)  # PSU cords (None: 2, one per side)
    power_cord: PowerCordForm = "c13"


class NicSpec(Strict):
    name: Text
    ports_per_module: int = Field(gt=0, le=8)  # backend ports per server cage (twin-port OSFP: 2)
    # split: links per server backend port (2: an 800G port run as 2 x 400G), at 1/split of its speed
    split: int = Field(default=1, ge=1, le=8)
    port_gbps: int | None = Field(
        default=None, ge=1, le=MAX_GBPS
    )  # one link's speed (listing; None: the server's)
    power_w_extra: float = Field(ge=0, le=1000, default=0)
    price_usd_extra: float = Field(ge=0, le=MAX_PRICE_USD, default=0)
    link_mtbf_years: float | None = Field(default=None, ge=MIN_MTBF_YEARS, le=100)


class MediaSpec(Strict):
    """One link class. ``module_power_w``: a single-port module (one link end), or for active copper
    (AEC) one cable end; ``twin_module_power_w``: a twin-port OSFP module carrying two links (None: two
    single-port modules' worth)."""

    name: Text
    media_class: MediaClass = Field(alias="class")
    reach_m: float = Field(gt=0, le=MAX_REACH_M)
    module_power_w: float = Field(ge=0, le=100)
    twin_module_power_w: float | None = Field(default=None, ge=0, le=200)
    optical: bool
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)
    price_usd_per_m: float = Field(ge=0, le=MAX_PRICE_USD, default=0)
    mtbf_years: float = Field(ge=MIN_MTBF_YEARS, le=1000)
    diameter_mm: float = Field(gt=0, le=50)
    kg_per_m: float = Field(ge=0, le=5)
    stock_lengths_m: list[Annotated[float, Field(gt=0, le=MAX_REACH_M)]] = Field(
        default_factory=list, max_length=200
    )
    speeds_gbps: list[Annotated[int, Field(ge=1, le=MAX_GBPS)]] = Field(
        default_factory=lambda: [400, 800], min_length=1, max_length=16
    )
    # the cable plant (layout/cable/plant.py): the module's connector ("": never through patch panels,
    # e.g. copper), its fibre, the fibres one link takes on a trunk, its channel's insertion-loss budget
    # (dB, IEEE PMD or vendor) and the most mated connections its channel may have (None: no check)
    connector: Literal["", "mpo", "lc"] = ""
    fibre: Literal["", "om3", "om4", "os2"] = ""
    fibres: int = Field(default=0, ge=0, le=32)
    channel_db: float | None = Field(default=None, gt=0, le=40)
    max_connections: int | None = Field(default=None, ge=0, le=12)

    @field_validator("stock_lengths_m")
    @classmethod
    def _stock_ascending(cls, v: list[float]) -> list[float]:
        if any(b <= a for a, b in zip(v, v[1:], strict=False)):
            fixed = sorted(set(v))
            raise PydanticCustomError(
                "unsorted",
                "stock lengths must rise from shortest to longest without repeats, got {got}",
                {"got": _num_list(v), "allowed": f"e.g. {_num_list(fixed)}"},
            )
        return v


def _num_list(v: list[float]) -> str:
    return "[" + ", ".join(f"{x:g}" for x in v) + "]"


class RackParts(Strict):
    rack_usd: float = Field(ge=0, le=MAX_PRICE_USD, default=0)
    tray_usd_per_m: float = Field(ge=0, le=MAX_PRICE_USD, default=0)


class PlantSpec(Strict):
    """The cable plant's figures (layout/cable/plant.py): loss per mated connection and per splice,
    fibre attenuation, stock trunk sizes, and the parts' indicative prices. Defaults: the shipped
    catalog's ``[plant]`` (sources there)."""

    mpo_db: float = Field(default=0.35, ge=0, le=3)
    lc_db: float = Field(default=0.25, ge=0, le=3)
    splice_db: float = Field(default=0.3, ge=0, le=3)
    mmf_db_per_km: float = Field(default=3.0, ge=0, le=10)
    smf_db_per_km: float = Field(default=0.4, ge=0, le=10)
    trunk_fibres: list[Annotated[int, Field(ge=2, le=6912)]] = Field(
        default_factory=lambda: [12, 24, 48, 96, 144, 288, 864], min_length=1, max_length=20
    )
    trunk_diameter_mm: list[Annotated[float, Field(gt=0, le=100)]] = Field(
        default_factory=lambda: [3.0, 3.8, 5.5, 8.0, 11.0, 14.5, 21.0], min_length=1, max_length=20
    )
    cord_lengths_m: list[Annotated[float, Field(gt=0, le=1000)]] = Field(
        default_factory=lambda: [1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0, 50.0, 100.0],
        min_length=1,
        max_length=50,
    )
    panel_fibres: int = Field(default=288, ge=12, le=10000)  # fibres one 1U panel terminates
    # a panel location's panels beyond its rack's free U go into fibre cabinets on free rack positions
    cabinet_ru: int = Field(default=42, ge=1, le=60)  # 1U panels one fibre cabinet holds
    cabinet_width_mm: float = Field(default=600.0, gt=0, le=2000)
    cabinet_depth_mm: float = Field(default=1200.0, gt=0, le=3000)  # it stands in a row band this deep
    cabinet_usd: float = Field(default=2500.0, ge=0, le=MAX_PRICE_USD)
    cassette_fibres: int = Field(default=12, ge=2, le=144)  # fibres of one MPO-to-LC cassette
    trunk_usd_per_fibre: float = Field(default=8.0, ge=0, le=MAX_PRICE_USD)  # both ends' terminations
    trunk_usd_per_fibre_m: float = Field(default=0.02, ge=0, le=MAX_PRICE_USD)
    panel_usd: float = Field(default=450.0, ge=0, le=MAX_PRICE_USD)
    cassette_usd: float = Field(default=180.0, ge=0, le=MAX_PRICE_USD)
    cord_usd: float = Field(default=20.0, ge=0, le=MAX_PRICE_USD)  # an LC duplex cord; MPO: x mpo_cord_factor
    mpo_cord_factor: float = Field(default=3.0, ge=0, le=100)
    cord_usd_per_m: float = Field(default=1.0, ge=0, le=MAX_PRICE_USD)

    @field_validator("trunk_fibres", "cord_lengths_m")
    @classmethod
    def _ascending(cls, v: list[float]) -> list[float]:
        if any(b <= a for a, b in zip(v, v[1:], strict=False)):
            raise PydanticCustomError(
                "unsorted",
                "sizes must rise from smallest to largest without repeats, got {got}",
                {"got": _num_list([float(x) for x in v]), "allowed": "e.g. [12, 24, 48, 96, 144, 288, 864]"},
            )
        return v


class LabourSpec(Strict):
    """Installation effort (layout/cable/labour.py), minutes per task; defaults: the shipped catalog's
    ``[labour]`` (all indicative, unverified)."""

    pull_min_per_m: float = Field(default=0.05, ge=0, le=60)  # a cable or cord laid in tray, per metre
    trunk_min_per_m: float = Field(default=0.15, ge=0, le=60)  # a trunk pulled (heavier, by a team)
    trunk_min: float = Field(default=20.0, ge=0, le=600)  # a trunk placed, dressed and landed at both ends
    patch_min: float = Field(default=1.0, ge=0, le=60)  # one connector cleaned, inspected and plugged
    dress_min: float = Field(default=1.5, ge=0, le=60)  # one cable or cord dressed into the cable managers
    label_min: float = Field(default=0.3, ge=0, le=60)  # one label printed and fixed
    test_min: float = Field(default=3.0, ge=0, le=120)  # one optical channel certified (OLTS, both ways)
    panel_min: float = Field(default=15.0, ge=0, le=600)  # one 1U panel mounted
    cassette_min: float = Field(default=5.0, ge=0, le=600)  # one cassette fitted
    crew: int = Field(default=10, ge=1, le=10000)  # technicians on site
    shift_h: float = Field(default=8.0, gt=0, le=24)  # working hours a day each


class CoolingSpec(Strict):
    """Heat a hall of this cooling type rejects per m2 of its floor, and the share of a liquid rack's
    heat its coolant carries (the rest goes to the room's air)."""

    kw_per_m2: float = Field(ge=0.1, le=100)
    liquid_fraction: float = Field(default=0.0, ge=0, le=1)


class BuswaySpec(Strict):
    """An overhead busway run (one per row side, or several side by side): its rating and price."""

    name: Text
    rating_kw: float = Field(ge=MIN_RATING_KW, le=10000)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)  # end feed unit and fittings, per run
    price_usd_per_m: float = Field(ge=0, le=MAX_PRICE_USD)


class TapOffSpec(Strict):
    """A tap-off box: one rack's feed from one busway side."""

    name: Text
    rating_kw: float = Field(ge=MIN_RATING_KW, le=10000)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)


class RackPduSpec(Strict):
    """A rack PDU: one side of a rack, fed by that side's tap-off; a rack takes per side as many of the
    model as carry the rack within the tap-off margin (layout/power/chain.py)."""

    name: Text
    rating_kw: float = Field(ge=MIN_RATING_KW, le=1000)
    outlets_c13: int = Field(ge=0, le=96)  # IEC 60320 C13 outlets (10 A), for C14-to-C13 PSU cords
    outlets_c19: int = Field(ge=0, le=96)  # C19 outlets (16 A), for C20-to-C19 cords
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)

    def outlets(self, form: str) -> int:
        """Outlets of a cord form (``c13`` or ``c19``)."""
        return self.outlets_c19 if form == "c19" else self.outlets_c13


class PowerCordSpec(Strict):
    """A PSU power cord of one form (IEC 60320 C13/C14 or C19/C20), as bought."""

    name: Text
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)


class BlockSpec(Strict):
    """A UPS block or a switchboard: the MW it carries and its price."""

    name: Text
    rating_mw: float = Field(ge=MIN_RATING_KW / 1000, le=100)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)


class CduSpec(Strict):
    """A coolant distribution unit: heat it carries, coolant flow at that heat, footprint, price."""

    name: Text
    rating_kw: float = Field(ge=MIN_RATING_KW, le=20000)
    flow_l_per_s: float = Field(ge=0.01, le=10000)
    width_m: float = Field(gt=0, le=10)
    depth_m: float = Field(gt=0, le=10)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)


class RearDoorSpec(Strict):
    """A rear-door heat exchanger: the heat of one rack it carries into the water loop, and its price."""

    name: Text
    rating_kw: float = Field(ge=MIN_RATING_KW, le=200)
    flow_l_per_s: float = Field(ge=0.01, le=100)
    price_usd: float = Field(ge=0, le=MAX_PRICE_USD)


class PartNumber(Strict):
    """A BOM part's maker part number and where it comes from (``[part_number."ID"]``, ID a BOM part id
    such as ``qm9700`` or ``mmf/x2``)."""

    number: Text = Field(min_length=1, max_length=64)
    source: Text = Field(min_length=1)


class Margins(Strict):
    """Engineering margins (layout/power/chain.py, cdus.py): the share of its rating each kind of element
    may carry continuously, and the power factor of the IT load on current-rated parts (tap-offs,
    busways, switchboards: their kW rating is sqrt(3) x V x I at power factor 1). The catalog states the
    defaults with their sources; a site's ``[margins]`` overrides any of them."""

    power_factor: float = Field(default=0.95, ge=0.5, le=1.0)
    tap_off: float = Field(default=0.8, gt=0.1, le=1.0)
    busway: float = Field(default=0.8, gt=0.1, le=1.0)
    switchboard: float = Field(default=0.8, gt=0.1, le=1.0)
    ups: float = Field(default=0.9, gt=0.1, le=1.0)
    cdu: float = Field(default=0.9, gt=0.1, le=1.0)  # CDUs and rear-door heat exchangers

    def kw(self, kind: str, rating_kw: float) -> float:
        """What an element of ``kind`` rated ``rating_kw`` may carry: its rating x its continuous-load
        limit, and x the power factor where the rating is a current (tap-off, busway, switchboard)."""
        pf = self.power_factor if kind in ("tap_off", "busway", "switchboard") else 1.0
        return float(rating_kw) * float(getattr(self, kind)) * pf

    def text(self, kind: str) -> str:
        """How the limit of ``kind`` is made, in words: "x 0.95 PF x 80 %"."""
        pf = f" x {self.power_factor:g} PF" if kind in ("tap_off", "busway", "switchboard") else ""
        return f"{pf} x {100 * float(getattr(self, kind)):g} % continuous"


class Catalog(Strict):
    format: Literal[1] = 1
    # each at least one entry: a design needs a server, a switch, a NIC and a medium to cable with
    server: dict[Id, ServerSpec] = Field(min_length=1)
    switch: dict[Id, SwitchSpec] = Field(min_length=1)
    nic: dict[Id, NicSpec] = Field(min_length=1)
    media: dict[Id, MediaSpec] = Field(min_length=1)
    node: dict[Id, NodeSpec] = Field(default_factory=dict)
    rack_part: RackParts = RackParts()
    plant: PlantSpec = PlantSpec()
    labour: LabourSpec = LabourSpec()
    # facilities (layout/power/cooling.py, layout/power/chain.py); a catalog without them designs no chain
    cooling: dict[Literal["air", "rear-door", "liquid"], CoolingSpec] = Field(default_factory=dict)
    busway: dict[Id, BuswaySpec] = Field(default_factory=dict)
    tap_off: dict[Id, TapOffSpec] = Field(default_factory=dict)
    ups: dict[Id, BlockSpec] = Field(default_factory=dict)
    switchboard: dict[Id, BlockSpec] = Field(default_factory=dict)
    cdu: dict[Id, CduSpec] = Field(default_factory=dict)
    rear_door: dict[Id, RearDoorSpec] = Field(default_factory=dict)
    rack_pdu: dict[Id, RackPduSpec] = Field(default_factory=dict)
    power_cord: dict[PowerCordForm, PowerCordSpec] = Field(default_factory=dict)
    margins: Margins = Margins()
    # maker part numbers by BOM part id (the rest get a dclayout number, DCL-...)
    part_number: dict[Annotated[str, Field(min_length=1, max_length=64)], PartNumber] = Field(
        default_factory=dict
    )
    # spares bought per BOM category, as a share of its quantity (rounded up per line)
    spares: dict[str, Annotated[float, Field(ge=0, le=0.5)]] = Field(default_factory=dict)

    def device(self, model: str) -> ServerSpec | SwitchSpec | NodeSpec | None:
        """The catalog entry of a device model (a server, switch or node), None when it has none."""
        return self.server.get(model) or self.switch.get(model) or self.node.get(model)

    def module_power_w(self, media_id: str, links_per_module: int) -> float:
        """Watts of one module of ``media_id`` carrying ``links_per_module`` links: the single-port figure
        for one link, the twin-port figure per two links above (a 1.6T cage of four 400G links draws
        as two twin-port modules)."""
        m = self.media[media_id]
        if links_per_module <= 1:
            return m.module_power_w
        twin = m.twin_module_power_w if m.twin_module_power_w is not None else 2 * m.module_power_w
        return twin * links_per_module / 2

    def backend(self, server: str, nic: str) -> tuple[int, int]:
        """(links, Gb/s each) of one server's backend: its ports, each split as the NIC option says
        (ConnectX-8 as 2 x 400G: 16 links of 400G from 8 ports of 800G)."""
        s = self.server[server]
        split = self.nic[nic].split if nic in self.nic else 1
        return s.backend_ports * split, s.backend_port_gbps // split

    def backend_per_cage(self, server: str, nic: str) -> int:
        """Backend links one cage (one module) of ``server`` carries: the system's own cage layout when
        the catalog gives one (DGX H100: 2, its 4 twin-port OSFP cages), else the NIC option's
        ``ports_per_module`` (PCIe ConnectX-7: 1, Cedar-7: 2)."""
        s = self.server.get(server)
        if s is not None and s.backend_ports_per_cage is not None:
            return s.backend_ports_per_cage
        return self.nic[nic].ports_per_module if nic in self.nic else 1

    def fabric_switches(self, server: str, nic: str) -> list[str]:
        """The switches (ids, sorted) that can serve the GPU fabric of ``server`` with ``nic``: ports as
        fast as its backend links (so not the 1 GbE SN2201 of the management network, nor the 100G
        SN2700 that aggregates it). What ``cluster.switch`` accepts, and what the TUI offers."""
        _, gbps = self.backend(server, nic)
        return sorted(s for s, x in self.switch.items() if x.fastest_gbps >= gbps)

    def media_by_reach(self) -> list[tuple[str, MediaSpec]]:
        """Media in catalog order (layout.cable.media picks the cheapest that reaches; equal prices: the first)."""
        return list(self.media.items())
