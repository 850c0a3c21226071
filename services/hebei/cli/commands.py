"""Imports every sub-command module so that each registers itself on ``app``."""

from hebei.cli import replay, score, simulate  # noqa: F401
