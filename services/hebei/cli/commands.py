"""Imports every sub-command module so that each registers itself on ``app``."""

from hebei.cli import bench, replay, score, simulate  # noqa: F401
