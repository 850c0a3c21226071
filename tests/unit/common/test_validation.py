"""The shared checks of client-sent values (hebei.common.validation)."""

from __future__ import annotations

import pytest

from hebei.common.errors import InvalidArgument
from hebei.common.validation import check_duration, check_token, shown


def test_a_token_is_bounded_printable_and_never_quoted() -> None:
    assert check_token("seat_token", "t" * 16) == "t" * 16
    for bad, words in [
        ("t" * 15, "16-256 characters, got 15"),
        ("t" * 257, "got 257"),
        ("secret with space", "printable"),
        ("secret\x00secret-secret", "printable"),
    ]:
        with pytest.raises(InvalidArgument, match=words) as caught:
            check_token("seat_token", bad)
        assert bad not in caught.value.message


@pytest.mark.parametrize(
    ("seconds", "nanos", "expected"),
    [(0, 100_000_000, 0.1), (300, 0, 300.0), (1, 500_000_000, 1.5)],
)
def test_a_duration_within_bounds(seconds: int, nanos: int, expected: float) -> None:
    assert check_duration("d", seconds, nanos, lo=0.1, hi=300) == expected


@pytest.mark.parametrize(
    ("seconds", "nanos", "words"),
    [
        (0, 2_000_000_000, "valid duration"),
        (1, -1, "valid duration"),
        (-1, 1, "valid duration"),
        (315_576_000_000, 0, "0.1-300 seconds"),
        (0, 99_999_999, "0.1-300 seconds"),
        (-5, 0, "0.1-300 seconds"),
    ],
)
def test_a_duration_out_of_bounds_or_malformed(seconds: int, nanos: int, words: str) -> None:
    with pytest.raises(InvalidArgument, match=words):
        check_duration("d", seconds, nanos, lo=0.1, hi=300)


def test_shown_caps_what_it_quotes() -> None:
    assert len(shown("x" * 10_000)) == 40
