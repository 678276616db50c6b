"""What ``dclayout optimize`` may minimise (layout/engine/optimize.py), in a module of its own so that the
CLI's parser names the choices without importing the optimiser (and numpy, shapely) to build itself."""

OBJECTIVES = ("optics", "optics+energy", "bom", "bom+energy")
