"""A tournament's standings from its booked entries, and whether its results are hidden from
the public reads.

Standings count only *effective* entries: settlements, corrections and adjustments that were
not reversed. Points are the account balances, which equal the sum of effective entries'
postings because a reversal negates its entry exactly. The tournament's own account
(:data:`~hebei.ledger.TOURNAMENT_ACCOUNT`) is never ranked.
"""

from __future__ import annotations

from dataclasses import dataclass

import psycopg

from hebei.common.errors import InvalidArgument, PermissionDenied
from hebei.ledger import TOURNAMENT_ACCOUNT
from hebei.ledger.connections import LedgerConnections
from hebei.ledger.model import MAX_ID_LENGTH, check_text

__all__ = ["MAX_STANDINGS", "RESULTS_HIDDEN", "Standing", "Standings"]

# Standings list the first MAX_STANDINGS players by rank: all of a tournament's (it has at most
# 4,096, matchmaking's MAX_PLAYERS), the top of quick play's, which grow without end.
MAX_STANDINGS = 4096


@dataclass(frozen=True)
class Standing:
    """A player's line in a tournament's standings. ``points`` include the adjustments, whose
    shares are ``penalty_points``, ``placement_points`` and ``replacement_points``."""

    rank: int
    player_id: str
    points: int
    hands_won: int
    self_draw_wins: int
    hands_dealt_in: int
    best_match_points: int
    hands_played: int
    matches_played: int
    kong_points: int
    penalty_points: int = 0
    placement_points: int = 0
    replacement_points: int = 0
    award_points: int = 0
    correction_points: int = 0


class Standings(LedgerConnections):
    """A tournament's standings, and hiding its results from the public reads."""

    def standings(
        self, tournament_id: str, *, time_limit: float | None = None, public: bool = False
    ) -> list[Standing]:
        """The players of ``tournament_id`` ranked by points, then hands won, fewer hands dealt
        in, best single match; players tied on all four share a rank (listed by player id).
        The tournament's own account is left out; at most the first MAX_STANDINGS.
        ``time_limit``: see :meth:`LedgerConnections._reading`. ``public`` (an anonymous
        caller): PermissionDenied while the tournament's results are hidden
        (:meth:`set_results_hidden`)."""
        check_text(tournament_id, "tournament_id", MAX_ID_LENGTH)
        params = {
            "tournament_id": tournament_id,
            "tournament_account": TOURNAMENT_ACCOUNT,
            "limit": MAX_STANDINGS,
        }
        with self._reading("GetStandings", time_limit) as conn:
            if public and _hidden(conn, tournament_id):
                raise PermissionDenied(RESULTS_HIDDEN)
            rows = conn.execute(_STANDINGS, params).fetchall()
        return [Standing(*row) for row in rows]

    def set_results_hidden(self, tournament_id: str, hidden: bool) -> bool:
        """Hide a tournament's results from the public reads (or show them again); idempotent.
        Returns ``hidden``."""
        check_text(tournament_id, "tournament_id", MAX_ID_LENGTH)
        if not tournament_id:
            raise InvalidArgument("tournament_id: required")
        with self._connection() as conn:
            if hidden:
                conn.execute(
                    "INSERT INTO hidden_results (tournament_id) VALUES (%s) ON CONFLICT DO NOTHING",
                    (tournament_id,),
                )
            else:
                conn.execute(
                    "DELETE FROM hidden_results WHERE tournament_id = %s", (tournament_id,)
                )
        return hidden

    def results_hidden(self, tournament_id: str) -> bool:
        """Whether the tournament's results are hidden from the public reads."""
        with self._connection() as conn:
            return _hidden(conn, tournament_id)


RESULTS_HIDDEN = (
    "this tournament's results are hidden until the organiser reveals them (matchmaking's"
    " GetStandings shows what is public)"
)


def _hidden(conn: psycopg.Connection, tournament_id: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM hidden_results WHERE tournament_id = %s", (tournament_id,)
    ).fetchone()
    return row is not None


# Effective entries only (neither reversals nor reversed). Hand, win and match counts come from
# settlements ("hand" postings); the best match sums a match's hands, kongs, placement,
# replacement and correction points, never penalties, awards nor entries without a match;
# the tournament's own account is not ranked.
_STANDINGS = """
WITH effective AS (
    SELECT e.entry_id, e.match_id, e.settlement
    FROM journal_entries e
    WHERE e.tournament_id = %(tournament_id)s AND e.kind <> 'reversal'
      AND NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.entry_id)
), lines AS (
    SELECT p.account_id, p.entry_id, p.seat, p.component, p.amount, ef.match_id, ef.settlement
    FROM effective ef JOIN postings p USING (entry_id)
), hands AS (
    SELECT account_id, count(*) AS hands_played, count(DISTINCT match_id) AS matches_played
    FROM lines WHERE component = 'hand' GROUP BY account_id
), wins AS (
    SELECT l.account_id,
           count(*) FILTER (WHERE (w ->> 'winner')::int = l.seat) AS hands_won,
           count(*) FILTER (WHERE (w ->> 'winner')::int = l.seat
                              AND w ->> 'kind' = 'WIN_KIND_SELF_DRAW') AS self_draw_wins,
           count(DISTINCT l.entry_id) FILTER (WHERE (w ->> 'discarder')::int = l.seat)
               AS hands_dealt_in
    FROM lines l CROSS JOIN LATERAL jsonb_array_elements(l.settlement -> 'wins') AS w
    WHERE l.component = 'hand'
    GROUP BY l.account_id
), matches AS (
    SELECT account_id, max(points) AS best_match_points
    FROM (SELECT account_id, match_id, sum(amount) AS points FROM lines
          WHERE component NOT IN ('penalty', 'award') AND match_id <> ''
          GROUP BY account_id, match_id) per_match
    GROUP BY account_id
), components AS (
    SELECT account_id,
           sum(amount) FILTER (WHERE component = 'kong') AS kong_points,
           sum(amount) FILTER (WHERE component = 'penalty') AS penalty_points,
           sum(amount) FILTER (WHERE component = 'placement') AS placement_points,
           sum(amount) FILTER (WHERE component = 'replacement') AS replacement_points,
           sum(amount) FILTER (WHERE component = 'award') AS award_points,
           sum(amount) FILTER (WHERE component = 'correction') AS correction_points
    FROM lines WHERE component <> 'hand'
    GROUP BY account_id
), rows AS (
    SELECT a.player_id, a.balance AS points,
           coalesce(wins.hands_won, 0) AS hands_won,
           coalesce(wins.self_draw_wins, 0) AS self_draw_wins,
           coalesce(wins.hands_dealt_in, 0) AS hands_dealt_in,
           coalesce(matches.best_match_points, 0) AS best_match_points,
           coalesce(hands.hands_played, 0) AS hands_played,
           coalesce(hands.matches_played, 0) AS matches_played,
           coalesce(components.kong_points, 0) AS kong_points,
           coalesce(components.penalty_points, 0) AS penalty_points,
           coalesce(components.placement_points, 0) AS placement_points,
           coalesce(components.replacement_points, 0) AS replacement_points,
           coalesce(components.award_points, 0) AS award_points,
           coalesce(components.correction_points, 0) AS correction_points
    FROM accounts a
    LEFT JOIN hands USING (account_id)
    LEFT JOIN wins USING (account_id)
    LEFT JOIN matches USING (account_id)
    LEFT JOIN components USING (account_id)
    WHERE a.tournament_id = %(tournament_id)s AND a.player_id <> %(tournament_account)s
      AND EXISTS (SELECT 1 FROM postings p WHERE p.account_id = a.account_id)
)
SELECT rank() OVER (ORDER BY points DESC, hands_won DESC, hands_dealt_in ASC,
                             best_match_points DESC)::int,
       player_id, points, hands_won::int, self_draw_wins::int, hands_dealt_in::int,
       best_match_points::bigint, hands_played::int, matches_played::int, kong_points::bigint,
       penalty_points::bigint, placement_points::bigint, replacement_points::bigint,
       award_points::bigint, correction_points::bigint
FROM rows
ORDER BY 1, player_id
LIMIT %(limit)s
"""
