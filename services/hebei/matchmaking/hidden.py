"""Hidden round results: which rounds of a tournament nobody but the operator may see yet.

Two settings hide results. ``hide_round_results`` hides the round in play until it is over;
``hide_last_rounds`` (N) hides the last N rounds until the operator reveals them
(RevealResults, recorded as the operator action "reveal"). While a round is hidden its results
are withheld from every read an anonymous caller or a player can reach:

- matchmaking's standings are those of the last round before the hidden ones (the operator
  sees them live), and the change feed's standings likewise;
- its matches are opened on the table engine with ``results_hidden`` (no score nor seed in an
  anonymous GetMatch or ListTables, no Spectate once ended) until matchmaking reveals the
  round there (RevealMatchResults);
- the ledger refuses anonymous reads of the tournament's standings and entries from its start
  until all of its results are public (SetResultsHidden).
"""

from __future__ import annotations

from collections.abc import Sequence

from hebei.matchmaking.store import RoundRow
from hebei.v1 import matchmaking_pb2 as mm

__all__ = ["REVEAL", "hidden_rounds", "hides_results", "opened_hidden", "revealed"]

REVEAL = "reveal"  # the operator action that reveals the last rounds


def hides_results(config: mm.TournamentConfig) -> bool:
    """Whether the tournament hides any results at all."""
    return config.hide_round_results or config.hide_last_rounds > 0


def _in_last_rounds(config: mm.TournamentConfig, round_no: int) -> bool:
    return config.hide_last_rounds > 0 and round_no > config.rounds - config.hide_last_rounds


def opened_hidden(config: mm.TournamentConfig, round_no: int) -> bool:
    """Whether a match of ``round_no`` is opened with its results hidden on the engine."""
    return config.hide_round_results or _in_last_rounds(config, round_no)


def revealed(actions: Sequence[mm.OperatorAction]) -> bool:
    """Whether the operator has revealed the tournament's hidden results."""
    return any(a.action == REVEAL for a in actions)


def hidden_rounds(
    config: mm.TournamentConfig,
    rounds: Sequence[RoundRow],
    is_revealed: bool,
    *,
    closing: int = 0,
) -> list[int]:
    """The seated or finished rounds whose results are hidden now (``closing``: that round
    counted as finished already)."""
    out = []
    for row in rounds:
        if row.status == "planned":
            continue
        running = row.status == "seated" and row.round_no != closing
        if (config.hide_round_results and running) or (
            _in_last_rounds(config, row.round_no) and not is_revealed
        ):
            out.append(row.round_no)
    return out
