"""Imports every sub-command module so that each registers itself on ``app``."""

from hebei.cli import bench, ledger, replay, score, simulate, table  # noqa: F401
from hebei.cli import play  # noqa: F401
from hebei.cli import bots  # noqa: F401
