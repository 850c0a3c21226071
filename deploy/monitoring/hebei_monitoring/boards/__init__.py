"""The Grafana dashboards, one module each, in the order the bundle lists them."""

from __future__ import annotations

from hebei_monitoring.boards.bots import BOARD as BOTS_BOARD
from hebei_monitoring.boards.grpc import BOARD as GRPC_BOARD
from hebei_monitoring.boards.ledger import BOARD as LEDGER_BOARD
from hebei_monitoring.boards.tables import BOARD as TABLES_BOARD
from hebei_monitoring.boards.tournaments import BOARD as TOURNAMENTS_BOARD
from hebei_monitoring.boards.web import BOARD as WEB_BOARD
from hebei_monitoring.panels import Board

BOARDS: list[Board] = [
    GRPC_BOARD,
    TABLES_BOARD,
    BOTS_BOARD,
    TOURNAMENTS_BOARD,
    LEDGER_BOARD,
    WEB_BOARD,
]
