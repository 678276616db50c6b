"""Modal dialogs of the terminal UI."""
