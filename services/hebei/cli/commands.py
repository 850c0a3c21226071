"""Imports every sub-command module so that each registers itself on ``app``."""
