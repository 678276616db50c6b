"""Sub-commands of the `dclayout` CLI, one module each (see layout/cli.py)."""
