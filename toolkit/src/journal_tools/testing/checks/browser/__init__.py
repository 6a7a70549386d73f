"""The checks of the built site in Chromium (marked `browser` by testing/plugin.py)."""
