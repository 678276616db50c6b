"""The scene: what every drawing (DXF, SVG, PDF plans, TUI map) shows of a design, worked out once.

``palette`` holds the one colour table (kW-use bands, rack-kind and element colours, with their nearest
AutoCAD colour index); ``build`` turns a Design into a :class:`Scene` of arrays: racks with their band
and fill, rows, aisles, tray edges with cables per medium and fill, violation markers with coordinates,
CDU boxes, and the campus (buildings, halls, ducts, pods per hall).
Pure: numpy, pandas and the models only; never textual, ezdxf or reportlab.
"""

from layout.scene.build import (
    MEDIA_CLASSES,
    Campus,
    HallGeometry,
    Scene,
    campus_of,
    marker_hall,
    scene_from_parts,
    scene_of,
    tray_edge_table,
)

__all__ = [
    "MEDIA_CLASSES",
    "Campus",
    "HallGeometry",
    "Scene",
    "campus_of",
    "marker_hall",
    "scene_from_parts",
    "scene_of",
    "tray_edge_table",
]
