"""Auditing the ledger on one consistent snapshot: every entry balances, every account balance
equals the sum of its postings, every tournament (its own account included) sums to zero; and
the time of the last sound audit of the whole ledger."""

from __future__ import annotations

from dataclasses import dataclass

from hebei.ledger.connections import LedgerConnections
from hebei.ledger.model import MAX_ID_LENGTH, check_text, show

__all__ = ["MAX_AUDIT_TOURNAMENTS", "AuditReport", "Audits", "TournamentSum"]

# An audit lists the sums of at most this many tournaments, those that do not sum to zero
# first; it checks them all (AuditReport.tournaments_checked).
MAX_AUDIT_TOURNAMENTS = 1000
_MAX_PROBLEMS = 100


@dataclass(frozen=True)
class TournamentSum:
    """The entries booked for one tournament and the sum of their postings (zero when sound)."""

    tournament_id: str
    entries: int
    total: int


@dataclass(frozen=True)
class AuditReport:
    """The figures of an audit; ``ok`` when no problem was found."""

    entries_checked: int
    postings_checked: int
    accounts_checked: int
    unbalanced_entries: int
    balance_mismatches: int
    tournaments: tuple[TournamentSum, ...]
    problems: tuple[str, ...]
    tournaments_checked: int = 0

    @property
    def ok(self) -> bool:
        """True when every entry balances, every balance matches and every tournament sums to 0."""
        return not self.problems


class Audits(LedgerConnections):
    """Auditing the ledger, and the time of its last sound audit."""

    def record_audit(self) -> float:
        """Store now as the time of the last sound audit of the whole ledger; return it (Unix
        time)."""
        with self._connection() as conn:
            row = conn.execute(
                "INSERT INTO last_audit (audited_at) VALUES (now()) ON CONFLICT (singleton)"
                " DO UPDATE SET audited_at = EXCLUDED.audited_at"
                " RETURNING extract(epoch FROM audited_at)"
            ).fetchone()
        return float(row[0])

    def last_audit(self) -> float | None:
        """The time (Unix) of the last sound audit of the whole ledger, None if none was."""
        with self._connection() as conn:
            row = conn.execute("SELECT extract(epoch FROM audited_at) FROM last_audit").fetchone()
        return None if row is None else float(row[0])

    def audit(
        self, tournament_id: str | None = None, *, time_limit: float | None = None
    ) -> AuditReport:
        """Check every entry balances, every balance equals its postings and every tournament
        sums to zero, on one consistent snapshot; return the figures and the problems found.
        A tournament's sum includes its own account (TOURNAMENT_ACCOUNT). The report lists at
        most MAX_AUDIT_TOURNAMENTS tournaments' sums, those that do not sum to zero first.
        ``time_limit``: see :meth:`LedgerConnections._reading`."""
        if tournament_id is not None:
            check_text(tournament_id, "tournament_id", MAX_ID_LENGTH)
        params = {"tournament_id": tournament_id}
        with self._reading("Audit", time_limit, isolation="REPEATABLE READ") as conn:
            entries, postings = conn.execute(_AUDIT_COUNTS, params).fetchone()
            accounts = conn.execute(_AUDIT_ACCOUNTS, params).fetchone()[0]
            unbalanced = conn.execute(_AUDIT_UNBALANCED, params).fetchall()
            mismatches = conn.execute(_AUDIT_BALANCES, params).fetchall()
            sums = conn.execute(_AUDIT_TOURNAMENTS, params).fetchall()
        problems = [
            f"entry {entry} has {count} postings summing to {total}"
            for entry, count, total in unbalanced
        ]
        problems += [
            f"account {show(player)} of tournament {show(tournament)} has balance {balance} "
            f"but its postings sum to {total}"
            for tournament, player, balance, total in mismatches
        ]
        tournaments = [TournamentSum(t, int(n), int(total)) for t, n, total in sums]
        problems += [
            f"tournament {show(t.tournament_id)} sums to {t.total}" for t in tournaments if t.total
        ]
        listed = sorted(tournaments, key=lambda t: t.total == 0)[:MAX_AUDIT_TOURNAMENTS]
        return AuditReport(
            entries_checked=int(entries),
            postings_checked=int(postings),
            accounts_checked=int(accounts),
            unbalanced_entries=len(unbalanced),
            balance_mismatches=len(mismatches),
            tournaments=tuple(listed),
            problems=tuple(problems[:_MAX_PROBLEMS]),
            tournaments_checked=len(tournaments),
        )


_AUDIT_COUNTS = """
SELECT (SELECT count(*) FROM journal_entries
        WHERE %(tournament_id)s::text IS NULL OR tournament_id = %(tournament_id)s),
       (SELECT count(*) FROM postings p JOIN journal_entries e USING (entry_id)
        WHERE %(tournament_id)s::text IS NULL OR e.tournament_id = %(tournament_id)s)
"""

_AUDIT_ACCOUNTS = """
SELECT count(*) FROM accounts
WHERE %(tournament_id)s::text IS NULL OR tournament_id = %(tournament_id)s
"""

_AUDIT_UNBALANCED = """
SELECT e.entry_id, count(p.entry_id), coalesce(sum(p.amount), 0)
FROM journal_entries e LEFT JOIN postings p USING (entry_id)
WHERE %(tournament_id)s::text IS NULL OR e.tournament_id = %(tournament_id)s
GROUP BY e.entry_id
HAVING count(p.entry_id) = 0 OR coalesce(sum(p.amount), 0) <> 0
ORDER BY e.entry_id
"""

_AUDIT_BALANCES = """
SELECT a.tournament_id, a.player_id, a.balance, coalesce(sum(p.amount), 0)
FROM accounts a LEFT JOIN postings p USING (account_id)
WHERE %(tournament_id)s::text IS NULL OR a.tournament_id = %(tournament_id)s
GROUP BY a.account_id
HAVING a.balance <> coalesce(sum(p.amount), 0)
ORDER BY a.tournament_id, a.player_id
"""

_AUDIT_TOURNAMENTS = """
SELECT e.tournament_id, count(DISTINCT e.entry_id), coalesce(sum(p.amount), 0)
FROM journal_entries e LEFT JOIN postings p USING (entry_id)
WHERE %(tournament_id)s::text IS NULL OR e.tournament_id = %(tournament_id)s
GROUP BY e.tournament_id
ORDER BY e.tournament_id
"""
