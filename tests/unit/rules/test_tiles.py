"""Tiles and notation (RULES.md §1)."""

import pytest

from hebei.rules.errors import NotationError
from hebei.rules.tiles import (
    DRAGONS,
    N_KINDS,
    TILE_NAMES,
    WINDS,
    format_tiles,
    is_honor,
    is_terminal,
    parse_tile,
    parse_tiles,
    to_counts,
)


def test_there_are_34_kinds_named_in_order():
    assert N_KINDS == 34
    assert TILE_NAMES[:9] == tuple(f"{r}m" for r in range(1, 10))
    assert TILE_NAMES[9] == "1p" and TILE_NAMES[18] == "1s"
    assert [TILE_NAMES[k] for k in WINDS] == ["1z", "2z", "3z", "4z"]
    assert [TILE_NAMES[k] for k in DRAGONS] == ["5z", "6z", "7z"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("123m456p789s1122z", "123m456p789s1122z"),
        ("1122z789s456p123m", "123m456p789s1122z"),  # suit runs in any order
        ("1m2m3m", "123m"),  # a suit may repeat
        ("9m 1m", "19m"),  # spaces are ignored
        ("7z", "7z"),
    ],
)
def test_parse_and_print_round_trip(text, expected):
    assert format_tiles(parse_tiles(text)) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("123x", "bad letter 'x'"),
        ("103m", "0 is not a tile"),
        ("8z", "8z is not a tile"),
        ("11111m", "5 copies of 1m"),
        ("123", "have no suit letter"),
        ("m123", "has no digits before it"),
    ],
)
def test_bad_notation_is_refused_with_a_clear_reason(text, message):
    with pytest.raises(NotationError, match=message):
        parse_tiles(text)


@pytest.mark.parametrize("bad", ["", "5", "10m", "5q", None, 5])
def test_parse_tile_refuses_anything_but_one_tile(bad):
    with pytest.raises(NotationError):
        parse_tile(bad)


def test_honors_and_terminals():
    assert [k for k in range(N_KINDS) if is_honor(k)] == list(range(27, 34))
    assert [TILE_NAMES[k] for k in range(N_KINDS) if is_terminal(k)] == [
        "1m",
        "9m",
        "1p",
        "9p",
        "1s",
        "9s",
    ]


def test_counts():
    counts = to_counts(parse_tiles("1123m"))
    assert counts[0] == 2 and counts[1] == 1 and counts[2] == 1 and sum(counts) == 4
