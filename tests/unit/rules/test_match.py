"""Matches (RULES.md §8) and dealer rotation (§2)."""

import pytest

from hebei.rules.actions import DISCARD, WIN
from hebei.rules.hand import Outcome
from hebei.rules.match import Match, MatchLength, next_dealer
from hebei.rules.players import AutoPlayer, RandomPlayer
from hebei.rules.profile import CLASSIC, MAIN
from hebei.rules.simulate import SimulationSummary, play_match
from tests.unit.rules.rigging import rigged_hand


@pytest.mark.parametrize(
    ("dealer", "outcome", "winners", "expected"),
    [
        (0, Outcome.WIN, (0,), 0),  # dealer wins: 连庄
        (0, Outcome.WIN, (2,), 1),  # another wins: the seat after the dealer deals
        (3, Outcome.WIN, (1,), 0),  # ... wrapping around
        (2, Outcome.EXHAUSTIVE_DRAW, (), 2),  # 荒庄: dealer stays
        (1, Outcome.WIN, (1, 3), 1),  # Decision: several winners, dealer among them: stays
        (1, Outcome.WIN, (0, 3), 2),  # several winners without the dealer: passes on
    ],
)
def test_dealer_rotation(dealer, outcome, winners, expected):
    assert next_dealer(dealer, outcome, winners, MAIN) == expected


def _play(match: Match) -> Match:
    play_match(match, [RandomPlayer(match.seed + s) for s in range(4)], SimulationSummary())
    return match


@pytest.mark.parametrize("hands", [1, 3, 8])
def test_a_fixed_number_of_hands(hands):
    match = _play(Match(7, MatchLength(hands=hands)))
    assert match.finished and match.hand_no == hands and len(match.hand_logs) == hands


def test_a_wind_round_ends_when_the_deal_has_passed_all_four_seats_or_at_the_cap():
    for seed in range(6):
        match = _play(Match(seed, MatchLength(hands=0, cap=12)))
        assert match.deal_passes == 4 or match.hand_no == 12
        assert match.hand_no <= 12


FAR = ["147m147p147s34567z", "258m258p258s1234z", "369m369p369s1234z", "258m369p147s5677z"]
WAITS_1M = "23m456p789s11122z"


def _stack_next_hand(match: Match, rotated: list[str]) -> None:
    """Deal the match's next hand on a stacked wall: ``rotated[i]`` goes to dealer + i."""
    hands = [""] * 4
    for offset, hand in enumerate(rotated):
        hands[(match.dealer + offset) % 4] = hand
    match.next_hand()
    match.hand = rigged_hand(hands, dealer=match.dealer)


def test_a_wind_round_ends_after_four_passes_of_the_deal():
    match = Match(3, MatchLength(hands=0, cap=100))
    first = match.dealer
    for n in range(4):
        _stack_next_hand(match, [FAR[0], WAITS_1M, FAR[2], FAR[3].replace("147s", "258s")])
        match.hand.apply(match.dealer, DISCARD[0])  # 1m, won by the seat after the dealer
        match.hand.apply((match.dealer + 1) % 4, WIN)
        assert match.finish_hand() is (n == 3)
        assert match.dealer == (first + n + 1) % 4
    assert match.deal_passes == 4 and match.hand_no == 4 and match.finished


def test_a_wind_round_stops_at_its_cap_when_the_dealer_keeps_the_deal():
    match = Match(4, MatchLength(hands=0, cap=3))
    player = AutoPlayer()
    for _ in range(3):
        _stack_next_hand(match, FAR)
        hand = match.hand
        while not hand.ended:
            seat = hand.to_act()[0]
            hand.apply(seat, player.choose(hand, seat, hand.legal_actions(seat)))
        assert hand.result.outcome is Outcome.EXHAUSTIVE_DRAW
        match.finish_hand()
    assert match.finished and match.hand_no == 3 and match.deal_passes == 0


def test_running_totals_are_the_sum_of_every_hand_and_sum_to_zero():
    match = _play(Match(11, MatchLength(hands=6)))
    totals = [0, 0, 0, 0]
    for log in match.hand_logs:
        for seat, delta in enumerate(log[-1]["settlement"]["total"]):
            totals[seat] += delta
    assert totals == match.scores and sum(match.scores) == 0


def test_seed_fixes_seating_first_dealer_and_every_hand():
    a, b = Match(5), Match(5)
    assert (a.seating, a.first_dealer) == (b.seating, b.first_dealer)
    assert sorted(a.seating) == [0, 1, 2, 3]
    assert a.next_hand().seed == b.next_hand().seed
    assert {Match(s).first_dealer for s in range(40)} == {0, 1, 2, 3}


def test_first_hand_is_dealt_by_the_first_dealer():
    match = Match(9)
    assert match.next_hand().dealer == match.first_dealer


def test_next_hand_refused_while_a_hand_is_playing():
    match = Match(1)
    match.next_hand()
    with pytest.raises(ValueError, match="still being played"):
        match.next_hand()


def test_bad_length_refused():
    with pytest.raises(ValueError):
        MatchLength(hands=-1)


@pytest.mark.parametrize(
    ("dealer", "outcome", "winners", "false_winners", "expected"),
    [
        # Every main rotation holds in the classic profile (§9 changes none of them) ...
        (0, Outcome.WIN, (0,), (), 0),
        (0, Outcome.WIN, (2,), (), 1),
        (2, Outcome.EXHAUSTIVE_DRAW, (), (), 2),  # §9: the exhaustive draw keeps the dealer
        (1, Outcome.WIN, (1, 3), (), 1),
        # ... and 诈胡: the dealer's false win passes the deal,
        (1, Outcome.FALSE_WIN, (), (1,), 2),
        (3, Outcome.WIN, (0,), (3,), 0),  # even beside another seat's real win
        # Decision: another seat's false win alone keeps the dealer, like a draw;
        (1, Outcome.FALSE_WIN, (), (2,), 1),
        (1, Outcome.WIN, (1,), (2,), 1),  # the dealer's real win beside it: 连庄
    ],
)
def test_classic_dealer_rotation(dealer, outcome, winners, false_winners, expected):
    assert next_dealer(dealer, outcome, winners, CLASSIC, false_winners) == expected


def test_a_classic_match_plays_and_its_totals_sum_to_zero():
    match = _play(Match(9, MatchLength(hands=12), CLASSIC))
    assert match.finished and match.hand_no == 12 and sum(match.scores) == 0
    assert match.start_event()["profile"] == "classic"
