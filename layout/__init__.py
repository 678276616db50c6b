"""dclayout: floor plan, cabling and power designer for AI training clusters."""

__version__ = "0.1.0"
