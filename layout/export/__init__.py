"""Exporters: thin adapters that read a finished `layout.design.Design` and write files (atomically)."""
