"""``hebei score``: JSON in, JSON out; malformed input exits 2 with one line on stderr."""

from __future__ import annotations

import pytest

from tests.unit.cli.score_runner import invoke, run

GOOD = {
    "hand": "123m789m456p22p678s",
    "melds": [],
    "win_tile": "6s",
    "win": "discard",
    "winner": 2,
    "dealer": 0,
    "discarder": 1,
}


def test_a_win_prints_items_bonus_and_deltas() -> None:
    out = invoke(GOOD)
    assert out.code == 0 and out.stderr == ""
    assert out.json() == {
        "legal": True,
        "fans": [{"id": "men_qing", "fan": 2}],
        "bonus": 2,
        "deltas": [0, -7, 7, 0],
    }


def test_flags_and_melds_are_read() -> None:
    out = invoke(
        {
            "hand": "123789m55p456s",
            "melds": [{"type": "concealed_kong", "tile": "2z"}],
            "win_tile": "5p",
            "win": "self_draw",
            "winner": 0,
            "dealer": 3,
            "kong_replacement": True,
            "last_tile": False,
        }
    )
    assert out.code == 0, out.stderr
    assert [f["id"] for f in out.json()["fans"]] == ["gang_shang_kai_hua", "men_qing"]


def test_a_hand_that_is_not_a_win_prints_legal_false() -> None:
    out = invoke({**GOOD, "hand": "123m789m456p23p678s", "win_tile": "3p"})
    assert out.code == 0 and out.json() == {"legal": False}


def bad(**changes: object) -> dict:
    obj = {**GOOD, **changes}
    return {k: v for k, v in obj.items() if v is not DROP}


DROP = object()

MALFORMED = {
    "not JSON": ("{hand: 123m", "not valid JSON"),
    "empty input": ("", "not valid JSON"),
    "not an object": ("[1, 2]", "must be a JSON object"),
    "too long": (" " * 70_000 + "{}", "stdin is longer than 65,536 characters"),
    "nested too deeply": ("[" * 60_000, "nested too deeply"),
    "unknown key": (bad(extra=1), "unknown key 'extra'"),
    "missing hand": (bad(hand=DROP), "missing key 'hand'"),
    "hand not a string": (bad(hand=123), "tiles are written as a string"),
    "bad tile letter": (bad(hand="123x789m456p22p678s"), "bad letter 'x'"),
    "a zero": (bad(hand="103m789m456p22p678s"), "0 is not a tile"),
    "too few tiles": (bad(hand="123m789m456p22p67s", win_tile="7s"), "concealed tiles"),
    "too many for the melds": (
        bad(melds=[{"type": "pong", "tile": "7z"}]),
        "a complete hand has 11 concealed tiles",
    ),
    "win tile not in hand": (bad(win_tile="9s"), "not in the hand"),
    "bad win tile": (bad(win_tile="10m"), "is not a tile"),
    "six copies with melds": (
        bad(hand="123m789m456p22p", melds=[{"type": "exposed_kong", "tile": "2p"}], win_tile="2p"),
        "6 copies of 2p",
    ),
    "five copies in hand": (bad(hand="11111m789m456p22p78s", win_tile="1m"), "5 copies of 1m"),
    "bad meld type": (bad(melds=[{"type": "chow", "tile": "1m"}]), "meld type 'chow'"),
    "meld not an object": (bad(melds=["7z"]), "a meld is an object"),
    "melds not a list": (bad(melds="7z"), "'melds' must be a list"),
    "bad win kind": (bad(win="tsumo"), "'win' must be one of"),
    "missing discarder": (bad(discarder=DROP), "needs the discarder"),
    "discarder is the winner": (bad(discarder=2), "cannot be the winner"),
    "discarder on a self-draw": (bad(win="self_draw"), "a self-draw win has no discarder"),
    "seat out of range": (bad(winner=4), "winner must be a seat 0-3"),
    "seat negative": (bad(dealer=-1), "dealer must be a seat 0-3"),
    "seat a bool": (bad(winner=True), "winner must be a seat 0-3"),
    "seat a string": (bad(discarder="1"), "discarder must be a seat 0-3"),
    "flag not a bool": (bad(last_tile="yes"), "'last_tile' must be true or false"),
    "robbing with a pair of the tile": (
        bad(hand="11m234p567p234789s", win_tile="1m", win="rob_kong"),
        "robbing a kong of 1m",
    ),
}


@pytest.mark.parametrize(("stdin", "message"), MALFORMED.values(), ids=list(MALFORMED))
def test_malformed_input_exits_2_with_one_line(stdin: object, message: str) -> None:
    out = invoke(stdin)
    assert out.code == 2
    assert out.stdout == ""
    assert out.stderr.endswith("\n") and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("hebei: score: ")
    assert message in out.stderr


def test_unknown_profile_exits_2() -> None:
    out = invoke(GOOD, "--profile", "nope")
    assert out.code == 2 and "unknown rule profile 'nope'" in out.stderr


@pytest.mark.parametrize(
    "stdin", [MALFORMED["not JSON"][0], MALFORMED["six copies with melds"][0], bad(winner=9)]
)
def test_malformed_input_through_the_installed_command(stdin: object) -> None:
    out = run(stdin)
    assert out.code == 2
    assert out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_installed_command_scores() -> None:
    out = run(GOOD)
    assert out.code == 0 and out.json()["deltas"] == [0, -7, 7, 0]


# ---------------------------------------------------------------- the classic profile (§9)

CLASSIC_WIN = {
    "profile": "classic",
    "hand": "456m789m22p345p",
    "melds": [{"type": "chow", "tile": "1m", "from": 0}],
    "win_tile": "5p",
    "win": "discard",
    "winner": 1,
    "dealer": 1,
    "discarder": 3,
}


def test_a_classic_win_with_a_chow_prints_its_pattern_and_points() -> None:
    out = invoke(CLASSIC_WIN)
    assert out.code == 0, out.stderr
    assert out.json() == {
        "legal": True,
        "fans": [{"id": "long", "fan": 3}],
        "points": 3,
        "deltas": [-6, 18, -6, -6],
    }


def test_a_classic_hand_without_eight_of_one_suit_prints_legal_false() -> None:
    obj = {**GOOD, "profile": "classic", "hand": "123m456m123p456p77s", "win_tile": "7s"}
    assert invoke(obj).json() == {"legal": False}
    assert invoke({**obj, "profile": "main"}).json()["legal"] is True


def test_the_main_profile_is_the_default_and_can_be_named() -> None:
    assert invoke({**GOOD, "profile": "main"}).stdout == invoke(GOOD).stdout
    assert invoke(GOOD, "--profile", "main").stdout == invoke(GOOD).stdout


CLASSIC_MALFORMED = {
    "unknown profile": ({**GOOD, "profile": "nope"}, "unknown rule profile 'nope'"),
    "profile not a string": ({**GOOD, "profile": 2}, "'profile' must be a profile name"),
    "chow in the main rules": (
        {**CLASSIC_WIN, "profile": "main"},
        "meld type 'chow' is not played in the main profile",
    ),
    "chow not by its lowest tile": (
        {**CLASSIC_WIN, "melds": [{"type": "chow", "tile": "8m"}]},
        "a chow is written with its lowest tile, 1-7 of m, p or s; got 8m",
    ),
    "chow of honors": (
        {**CLASSIC_WIN, "melds": [{"type": "chow", "tile": "1z"}]},
        "a chow is written with its lowest tile",
    ),
    "chow with a fifth copy": (
        {
            **CLASSIC_WIN,
            "hand": "444m22p345p",
            "melds": [{"type": "chow", "tile": "2m"}, {"type": "chow", "tile": "3m"}],
        },
        "5 copies of 4m",
    ),
}


@pytest.mark.parametrize(
    ("stdin", "message"), CLASSIC_MALFORMED.values(), ids=list(CLASSIC_MALFORMED)
)
def test_malformed_classic_input_exits_2_with_one_line(stdin: object, message: str) -> None:
    out = invoke(stdin)
    assert out.code == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("hebei: score: ")
    assert message in out.stderr


def test_the_option_and_the_input_must_agree_on_the_profile() -> None:
    out = invoke(CLASSIC_WIN, "--profile", "main")
    assert out.code == 2
    assert '--profile main but the input names "profile": "classic"' in out.stderr
    assert invoke(CLASSIC_WIN, "--profile", "classic").json()["points"] == 3


def test_installed_command_scores_a_classic_win() -> None:
    out = run(CLASSIC_WIN)
    assert out.code == 0 and out.stderr == "" and out.json()["points"] == 3
