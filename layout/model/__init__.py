"""Pydantic models of the inputs: site file, rack templates, part catalog. Units live in field names."""

from layout.model.catalog import Catalog, MediaSpec, NicSpec, ServerSpec, SwitchSpec
from layout.model.site import Building, Cluster, Hall, SiteFile
from layout.model.templates import RackTemplate, Slot

__all__ = [
    "Building",
    "Catalog",
    "Cluster",
    "Hall",
    "MediaSpec",
    "NicSpec",
    "RackTemplate",
    "ServerSpec",
    "SiteFile",
    "Slot",
    "SwitchSpec",
]
