"""Imports every sub-command module so that each registers itself on ``app``."""

from hebei.cli import bench, bots, demo, ledger, play, replay, score, simulate, table  # noqa: F401
