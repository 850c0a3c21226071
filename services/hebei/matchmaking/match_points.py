"""Matchmaking's own arithmetic of an ended match's points: placement points, the fixed points
of replaced players, and each player's expected total, to cross-check the ledger."""

from __future__ import annotations

from collections.abc import Sequence

from hebei.matchmaking.gateways import Line
from hebei.matchmaking.settings import Settings
from hebei.matchmaking.standings import placement_shares
from hebei.matchmaking.store import MatchRow, PenaltyRow

__all__ = ["expected_points", "fixed_seat_deltas", "placement_lines"]


def placement_lines(match: MatchRow, points: Sequence[int]) -> list[Line]:
    """The placement-point lines of an ended match."""
    shares = placement_shares(match.scores or [0, 0, 0, 0], points)
    return [
        Line(pid, share) for pid, share in zip(match.player_ids(), shares, strict=True) if share
    ]


def fixed_seat_deltas(match: MatchRow, settings: Settings) -> list[tuple[int, str, int]]:
    """(seat, player, correction) of each seat of an ended match that counts as fixed points
    (a removed or withdrawn player's): what brings the player's whole match (the hands the
    seat played, by the player and then its replacement, and the seat's placement points) to
    exactly ``replaced_match_points``. Zero corrections are left out."""
    if match.scores is None:
        return []
    shares = [0, 0, 0, 0]
    if settings.placement_points and match.status == "finished":
        shares = placement_shares(match.scores, settings.placement_points)
    out = []
    for seat, replaced in sorted(match.replaced.items()):
        if replaced.get("counting") != "fixed":
            continue
        booked = match.scores[int(seat)] + shares[int(seat)]
        delta = settings.config.replaced_match_points - booked
        if delta:
            out.append((int(seat), replaced["player_id"], delta))
    return out


def expected_points(
    matches: Sequence[MatchRow],
    penalties: Sequence[PenaltyRow],
    settings: Settings,
    corrected: Sequence[Line] = (),
) -> dict[str, int]:
    """Each player's points by matchmaking's own arithmetic (reported scores, placement
    points, fixed points of replaced matches, penalties and awards, the corrections in force
    ``corrected``) — to cross-check the ledger."""
    out: dict[str, int] = {}
    for line in corrected:
        out[line.player_id] = out.get(line.player_id, 0) + line.amount
    for match in matches:
        if not match.ended or match.scores is None:
            continue
        for pid, score in zip(match.player_ids(), match.scores, strict=True):
            out[pid] = out.get(pid, 0) + score
        if settings.placement_points and match.status == "finished":
            for line in placement_lines(match, settings.placement_points):
                out[line.player_id] = out.get(line.player_id, 0) + line.amount
        for _seat, pid, delta in fixed_seat_deltas(match, settings):
            out[pid] = out.get(pid, 0) + delta
    for penalty in penalties:
        if not penalty.cancelled and penalty.entry_id:
            out[penalty.player_id] = out.get(penalty.player_id, 0) - penalty.points
    return out
