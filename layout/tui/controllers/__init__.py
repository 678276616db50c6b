"""The app's controllers, one concern each, around the headless session (see base.py)."""
