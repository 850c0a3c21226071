"""The seating's vocabulary: the modes, winds and limits, a table of four, and the results
(a round's :class:`Quality` and :class:`SeatedRound`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

MODES = ("swiss", "random", "schedule", "duplicate")
WINDS = ("East", "South", "West", "North")
MIN_PLAYERS = 4
MAX_PLAYERS = 4096
MAX_ROUNDS = 64
FILLER_PREFIX = "filler-"
"""The ids of the bots that complete a field to a multiple of four (the director's)."""

Table = tuple[str, str, str, str]
"""A table's players: East, South, West, North."""

IndexedRound = list[list[int]]
"""Inside the seating, a round's tables as lists of player indices."""


@dataclass(frozen=True)
class Quality:
    """The quality of one round's seating, given the rounds before it."""

    repeat_pairs: int
    """Pairs at this round's tables that met in an earlier round."""
    consecutive_repeats: int
    """Pairs that also met in the round just before."""
    max_pair_meetings: int
    """The most times any pair has met over the event so far (this round included)."""
    wind_spread: int
    """The largest max - min of one player's four wind counts so far."""
    standings_spread: float
    """Mean over tables of max - min standings points at the table (0.0 without standings)."""
    deadline_hit: bool
    """True when the search stopped at its deadline and the best seating so far was used."""
    seconds: float
    """Time spent (not deterministic: keep it out of anything compared byte for byte)."""

    def to_json(self) -> dict[str, int | float]:
        """The deterministic fields (no ``seconds``, no ``deadline_hit``)."""
        fields = asdict(self)
        del fields["seconds"], fields["deadline_hit"]
        fields["standings_spread"] = round(self.standings_spread, 6)
        return fields


@dataclass(frozen=True)
class SeatedRound:
    """One round's seating."""

    round_no: int
    tables: tuple[Table, ...]
    groups: tuple[int, ...]
    """Duplicate mode: the group index of each table (four tables per group); else all 0."""
    quality: Quality
