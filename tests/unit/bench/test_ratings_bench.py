"""`hebei bench ratings`: ratings fitted on bot matches predict held-out winners."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from hebei.bench.ratings import (
    MAX_MATCHES,
    TEST,
    TRAIN,
    PlayedMatch,
    check_pool,
    match_seed,
    oracle_seat,
    play_split,
    predicted_seat,
    run_ratings_bench,
    winner_log_likelihood,
)
from hebei.cli import (
    app,
    commands,  # noqa: F401  (registers the sub-commands)
)
from hebei.matchmaking.ratings import Rating

# Three spellings of the random policy are three identities; with the efficiency and the expert
# policies that makes a pool with a clear bottom and a close top.
POOL = ("random", "random:0", "random:1", "efficiency", "expert")
RANDOMS = POOL[:3]
HELD_OUT = 40
# A predictor that ignores the ratings (a seat at random) hits each held-out match with
# probability ~1/4, independently: its accuracy over 40 matches has a standard deviation of
# sqrt(0.25 * 0.75 / 40) = 0.068, and it reaches chance + 0.2 (18 or more hits of 40) with
# probability under 0.5% (binomial tail). The ratings' pick, which never backs a random
# identity, is expected at about 0.7: two matches in five seat one strong identity among three
# randoms (it nearly always wins), three in five seat both (a near coin flip between them).
MARGIN = 0.2


@pytest.fixture(scope="module")
def small_run() -> dict:
    """A seeded run of a few seconds: 20 training and 40 held-out matches of 4 hands."""
    return run_ratings_bench(
        train=20, test=HELD_OUT, seed=1, hands_per_match=4, pool=POOL
    ).to_json()


def test_a_small_run_rates_random_below_the_expert(small_run: dict) -> None:
    ordinal = {row["rating_id"]: row["ordinal"] for row in small_run["ratings"]}
    assert set(ordinal) == set(POOL)
    for weak in RANDOMS:
        assert ordinal[weak] < min(ordinal["expert"], ordinal["efficiency"]), ordinal
    assert [row["rank"] for row in small_run["ratings"]] == [1, 2, 3, 4, 5]
    assert sum(row["matches"] for row in small_run["ratings"]) == 4 * 20


def test_a_small_run_predicts_held_out_winners_better_than_chance(small_run: dict) -> None:
    assert 0.25 <= small_run["chance"] < 0.3  # 1/4, a little more when first place is shared
    assert small_run["top1_accuracy"] >= small_run["chance"] + MARGIN, small_run
    assert small_run["log_likelihood_per_match"] > small_run["uniform_log_likelihood_per_match"]
    assert small_run["uniform_log_likelihood_per_match"] <= math.log(small_run["chance"]) + 1e-3
    assert 0 < small_run["top1_ci95"] < 0.2 and 0 <= small_run["oracle_accuracy"] <= 1


def test_training_and_held_out_walls_never_meet() -> None:
    for seed in (-3, 0, 1, 20240601):
        last_training = match_seed(seed, TRAIN, MAX_MATCHES - 1)
        assert match_seed(seed, TRAIN, 0) <= last_training < match_seed(seed, TEST, 0)
        assert match_seed(seed, TEST, MAX_MATCHES - 1) < match_seed(seed + 1, TRAIN, 0)


def test_play_split_is_seeded_and_seats_four_distinct_identities() -> None:
    first = play_split(POOL, 3, seed=7, split=TEST, hands_per_match=1)
    assert first == play_split(POOL, 3, seed=7, split=TEST, hands_per_match=1)
    assert first != play_split(POOL, 3, seed=7, split=TRAIN, hands_per_match=1)
    for match in first:
        assert len(set(match.seated)) == 4 and set(match.seated) <= set(POOL)
        assert sum(match.points) == 0  # points only move between the seats


def test_predictions_of_one_match() -> None:
    match = PlayedMatch(("efficiency", "random", "expert", "random:1"), (12, -20, 12, -4))
    assert match.first == (0, 2)
    ratings = {
        "efficiency": Rating(30.0, 2.0),
        "random": Rating(5.0, 2.0),
        "expert": Rating(31.0, 2.0),
        "random:1": Rating(6.0, 2.0),
    }
    assert predicted_seat(match, ratings) == 2
    assert oracle_seat(match, POOL) == 2
    # Nearly all the chance of first place is on the two seats that shared it.
    assert -0.1 < winner_log_likelihood(match, ratings) < 0
    # An upset costs more than a uniform guess would.
    upset = PlayedMatch(match.seated, (-4, -20, -8, 32))
    assert upset.first == (3,)
    assert winner_log_likelihood(upset, ratings) < math.log(0.25)


@pytest.mark.parametrize(
    ("pool", "message"),
    [
        (["random", "efficiency", "expert"], "at least 4 distinct policies"),
        (["random", "efficiency", "expert", "expert"], "at least 4 distinct policies"),
        (["random", "efficiency", "expert", "smart"], "unknown policy 'smart'"),
        (["random", "efficiency", "expert", "expert:9"], "levels 1, 2, 3, 4"),
    ],
)
def test_bad_pools_are_refused(pool: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_pool(pool)


def test_cli_json() -> None:
    args = ["bench", "ratings", "--train", "2", "--test", "2", "--hands", "1", "--json"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    body = json.loads(out.stdout)
    keys = {"top1_accuracy", "chance", "log_likelihood_per_match", "ratings"}
    assert body.keys() >= keys | {"uniform_log_likelihood_per_match", "oracle_accuracy"}
    assert (body["train"], body["test"], body["hands_per_match"]) == (2, 2, 1)
    assert {row["rating_id"] for row in body["ratings"]} == {
        "random",
        "efficiency",
        "expert:1",
        "expert:2",
        "expert:3",
    }


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["--train", "0"], "hebei: --train must be 1-1,000,000, got 0"),
        (["--test", "1"], "hebei: --test must be 2-1,000,000, got 1"),
        (["--hands", "0"], "hebei: --hands must be 1-64, got 0"),
        (["--hands", "65"], "hebei: --hands must be 1-64, got 65"),
        (
            ["--pool", "random,expert"],
            "hebei: the pool needs at least 4 distinct policies, got ['random', 'expert']",
        ),
        (
            ["--pool", "random,efficiency,expert,expert:x"],
            "hebei: policy level must be a number, got 'expert:x'",
        ),
    ],
)
def test_cli_bad_options_print_one_line(args: list[str], line: str) -> None:
    out = CliRunner().invoke(app, ["bench", "ratings", *args])
    assert out.exit_code == 2
    assert out.stderr.strip() == line
    assert out.stdout == ""
