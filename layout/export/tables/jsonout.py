"""JSON: ``write_json(obj, path)`` with sorted keys, two-space indent, NaN/inf as ``null``."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from layout.export.atomic import write_bytes


def jsonable(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        obj = obj.item()
    if obj is pd.NA or (isinstance(obj, float) and not math.isfinite(obj)):
        return None
    return obj


def json_text(obj: Any) -> str:
    return json.dumps(jsonable(obj), indent=2, sort_keys=True, allow_nan=False) + "\n"


def write_json(obj: Any, path: str | Path) -> Path:
    return write_bytes(path, json_text(obj).encode("utf-8"))
