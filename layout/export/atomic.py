"""The exporters' atomic writes: :mod:`layout.files` (a core module, as the site editor saves with it too),
under the name the exporters have always imported."""

from layout.files import Settler, atomic_path, write_bytes, write_text

__all__ = ["Settler", "atomic_path", "write_bytes", "write_text"]
