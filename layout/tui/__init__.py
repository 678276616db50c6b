"""The terminal UI (`dclayout tui`): a Textual front end that drives layout.siteedit and layout.design."""
