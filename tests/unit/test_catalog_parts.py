"""The current-generation parts of the catalog (issue 15): their figures as the NVIDIA pages cited in
rack_templates/catalog.toml give them, and the checks that keep a new part consistent."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from layout.load import DEFAULT_TEMPLATES_DIR, InputError, load_catalog

CATALOG = load_catalog()


def test_blackwell_systems_carry_their_reference_design() -> None:
    b200, b300 = CATALOG.server["dgx-b200"], CATALOG.server["dgx-b300"]
    assert (b200.backend_ports, b200.backend_port_gbps, b200.su_servers) == (8, 400, 32)
    assert (b300.backend_ports, b300.backend_port_gbps, b300.su_servers, b300.servers_per_rack) == (
        8,
        800,
        72,
        4,
    )
    # four DGX B300 per rack ~56 kW (SuperPOD B300 XDR RA)
    assert 4 * b300.power_kw == pytest.approx(56, rel=0.01)
    gb300 = CATALOG.server["gb300-nvl72"]
    assert (gb300.gpus, gb300.nvlink_gpus, gb300.su_servers, gb300.cooling) == (72, 72, 8, "liquid")
    assert gb300.backend_ports == 72 and gb300.ports_per_rail == 4  # 18 rails, one per tray position


def test_a_cx8_port_runs_as_800g_or_as_2x400g() -> None:
    assert CATALOG.backend("dgx-b300", "cx8") == (8, 800)
    assert CATALOG.backend("dgx-b300", "cx8-2x400") == (16, 400)
    assert CATALOG.backend("dgx-h100", "cx7") == (8, 400)


def test_switch_protocols_and_the_liquid_cooled_variant() -> None:
    proto = {k: v.protocol for k, v in CATALOG.switch.items()}
    assert proto["qm9700"] == proto["q3400"] == proto["q3450-ld"] == "infiniband"
    assert proto["sn5600"] == proto["sn5610"] == proto["sn2201"] == "ethernet"
    assert CATALOG.switch["q3450-ld"].cooling == "liquid" and CATALOG.switch["q3400"].cooling == "air"
    q = CATALOG.switch["q3400"]
    assert q.ports * q.port_gbps == 144 * 800


def test_every_reach_class_has_a_400g_and_an_800g_medium() -> None:
    for speed in (400, 800):
        classes = {m.media_class for m in CATALOG.media.values() if speed in m.speeds_gbps}
        assert {"dac", "aec", "mmf", "smf", "coherent"} <= classes, speed
    # 1.6T (2 x 800G) twin-port modules at the switch draw less than two single-port 800G modules
    for mid in ("mmf-800", "smf-dr-800", "smf-fr-800"):
        m = CATALOG.media[mid]
        assert m.twin_module_power_w is not None and m.twin_module_power_w < 2 * m.module_power_w


def test_rails_must_divide_the_backend_ports(tmp_path: Path) -> None:
    shutil.copytree(DEFAULT_TEMPLATES_DIR, tmp_path / "t")
    cat = tmp_path / "t" / "catalog.toml"
    cat.write_text(cat.read_text().replace("rails = 18 ", "rails = 17 ", 1))
    with pytest.raises(InputError) as e:
        load_catalog(tmp_path / "t")
    assert "server.gb200-nvl72.rails: 72 backend ports do not spread evenly over 17 rails" in str(e.value)
