"""The pure parts of routing: the refusal's status, message and metadata, reading it back from an
error, the entry addresses, the bounded caches, the backoff and one call's course (with a fake
clock), and the takeover bound kept equal to the ownership machinery's."""

from __future__ import annotations

import random

import grpc
import pytest

from hebei.common.ownership.timings import Timings
from hebei.common.routing import (
    DEFAULT_DEADLINE_SECONDS,
    NOT_SERVED_KEY,
    OWNER_KEY,
    TAKEOVER_BOUND_SECONDS,
    CallPlan,
    ChannelPool,
    MatchRouter,
    NoRoute,
    Owner,
    RouteBackoff,
    RouteBook,
    RouteSettings,
    is_refusal,
    owner_of,
    parse_addresses,
    refusal,
)
from hebei.common.routing.caches import DOWN_SECONDS
from hebei.common.routing.plan import MIN_ATTEMPT_SECONDS, check_settings

UNAVAILABLE = grpc.StatusCode.UNAVAILABLE


class FakeError(grpc.RpcError):
    """What a failed call raises: a code, details and trailing metadata."""

    def __init__(self, code: grpc.StatusCode, details: str = "", metadata=()) -> None:
        super().__init__(details)
        self._code, self._details, self._metadata = code, details, tuple(metadata)

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details

    def trailing_metadata(self):
        return self._metadata


def refused(match_id: str, owner: Owner | None) -> FakeError:
    r = refusal(match_id, owner)
    return FakeError(r.code, r.details, r.trailing_metadata)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


# ----------------------------------------------------------------------------- the convention


def test_a_refusal_names_the_owner_and_stops_the_channel_s_retries() -> None:
    r = refusal("m-7", Owner("table-2", "10.0.0.7:50051"))
    assert r.code == grpc.StatusCode.UNAVAILABLE
    assert r.details == "match m-7 is served by table replica table-2 at 10.0.0.7:50051"
    assert r.trailing_metadata == (
        (OWNER_KEY, "10.0.0.7:50051"),
        (NOT_SERVED_KEY, "1"),
        ("grpc-retry-pushback-ms", "-1"),
    )


@pytest.mark.parametrize(
    "owner", [None, Owner("table-2", "10.0.0.7:50051", serving=False), Owner("t", "ädr:1")]
)
def test_nobody_serving_means_no_owner_in_the_metadata(owner: Owner | None) -> None:
    r = refusal("m-7", owner)
    assert r.details == "match m-7 is being taken over; try again"
    assert dict(r.trailing_metadata) == {NOT_SERVED_KEY: "1", "grpc-retry-pushback-ms": "-1"}


def test_a_huge_match_id_is_cut_in_the_message() -> None:
    assert len(refusal("x" * 5000, None).details) < 260


def test_owner_of_reads_refusals_only() -> None:
    assert owner_of(refused("m", Owner("r", "a:1"))) == "a:1"
    assert owner_of(refused("m", None)) is None
    # The metadata without the status, or a failure of another kind: no owner.
    assert owner_of(FakeError(grpc.StatusCode.NOT_FOUND, "", [(OWNER_KEY, "a:1")])) is None
    assert owner_of(FakeError(UNAVAILABLE, "connection refused")) is None
    assert owner_of(NoRoute("gone")) is None
    assert owner_of(RuntimeError("not a call")) is None


def test_is_refusal_tells_a_refusal_from_a_failure() -> None:
    assert is_refusal(refused("m", None))
    assert is_refusal(refused("m", Owner("r", "a:1")))
    assert not is_refusal(FakeError(UNAVAILABLE, "connection refused"))
    assert not is_refusal(NoRoute("gone"))


def test_the_takeover_bound_is_the_ownership_machinery_s() -> None:
    assert Timings().takeover_bound_seconds == pytest.approx(TAKEOVER_BOUND_SECONDS)
    assert pytest.approx(2 * TAKEOVER_BOUND_SECONDS) == DEFAULT_DEADLINE_SECONDS


# ----------------------------------------------------------------------------- addresses


def test_addresses_parse_in_order() -> None:
    assert parse_addresses("a:1,b:2") == ("a:1", "b:2")
    assert parse_addresses(" table-0.table:50051 , [::1]:7 ") == ("table-0.table:50051", "[::1]:7")


@pytest.mark.parametrize(
    ("setting", "says"),
    [
        ("", "no address"),
        ("  ", "no address"),
        ("a:1,,b:2", "address 2 of 'a:1,,b:2' is empty"),
        ("a:1,", "is empty"),
        ("a", "has no port"),
        (":50051", "has no host"),
        ("a:b", "numeric port"),
        ("a:0", "1-65535"),
        ("a:70000", "1-65535"),
        ("::1:5", "[addr]:port"),
        ("[::1:5", "[addr]:port"),
        ("a b:1", "letters, digits"),
        ("a:1,a:1", "given twice"),
        (",".join(f"h{i}:1" for i in range(65)), "at most 64"),
    ],
)
def test_bad_addresses_are_a_clear_value_error(setting: str, says: str) -> None:
    with pytest.raises(ValueError, match=r".*") as caught:
        parse_addresses(setting)
    assert says in str(caught.value)


def test_a_router_needs_entries() -> None:
    with pytest.raises(ValueError, match="at least one entry"):
        RouteBook(())
    with pytest.raises(ValueError, match="at least one entry"):
        RouteBook("a:1")  # a string is not a sequence of addresses
    with pytest.raises(ValueError, match="max_matches"):
        RouteBook(("a:1",), max_matches=0)


# ----------------------------------------------------------------------------- the caches


def test_unknown_matches_take_the_entries_in_turn_and_stay_there() -> None:
    book = RouteBook(("a:1", "b:2", "c:3"))
    assert [book.address_for(m) for m in ("m1", "m2", "m3", "m4")] == ["a:1", "b:2", "c:3", "a:1"]
    assert book.address_for("m2") == "b:2"
    assert book.owner("m2") is None
    book.learn("m2", "z:9")
    assert book.address_for("m2") == "z:9"
    assert book.owner("m2") == "z:9"


def test_a_lost_route_moves_to_the_entry_after_the_one_that_failed_once() -> None:
    book = RouteBook(("a:1", "b:2", "c:3"))
    book.learn("m", "b:2")
    assert book.forget("m", "b:2") == "c:3"
    assert book.owner("m") is None
    # The other seats of the match failing at b:2 too find it moved already.
    assert book.forget("m", "b:2") == "c:3"
    assert book.forget("m", "c:3") == "a:1"
    book.learn("m", "z:9")  # an owner that is not an entry: the next entry in turn
    assert book.forget("m", "z:9") in book.entries


def test_an_entry_out_of_reach_is_passed_over_for_a_while() -> None:
    """During a takeover the dead replica, still listed, does not take every other attempt:
    after it failed unreachable, lost routes and new matches go round the others only."""
    clock = FakeClock()
    book = RouteBook(("a:1", "b:2", "c:3"), down_seconds=7.2, clock=clock)
    book.learn("m", "a:1")
    assert book.forget("m", "a:1", unreachable=True) == "b:2"
    assert book.down() == ["a:1"]
    assert book.forget("m", "b:2") == "c:3"  # refused: "being taken over"
    assert book.forget("m", "c:3") == "b:2"  # a:1 passed over
    assert [book.address_for(m) for m in ("n1", "n2", "n3")] == ["b:2", "c:3", "b:2"]
    clock.now += 7.3  # its mark expired: in turn again
    assert book.down() == []
    assert book.forget("m", "b:2") == "c:3"
    assert book.forget("m", "c:3") == "a:1"
    book.forget("m", "a:1", unreachable=True)
    book.reached("a:1")  # it answered a call: not down
    assert book.down() == []


def test_with_every_entry_out_of_reach_the_turn_goes_on() -> None:
    clock = FakeClock()
    book = RouteBook(("a:1", "b:2"), clock=clock)
    assert book.forget("m", "a:1", unreachable=True) == "b:2"
    assert book.forget("m", "b:2", unreachable=True) == "a:1"
    assert book.forget("m", "a:1", unreachable=True) == "b:2"
    assert book.down() == ["a:1", "b:2"]
    # Only entries are marked: at most one mark each, whatever the owners named.
    book.learn("m", "z:9")
    book.forget("m", "z:9", unreachable=True)
    assert book.down() == ["a:1", "b:2"]
    with pytest.raises(ValueError, match="down_seconds"):
        RouteBook(("a:1",), down_seconds=-1)


def test_routers_mark_the_entries_they_cannot_reach_and_clear_those_that_answer() -> None:
    settings = RouteSettings(deadline_seconds=3.0)
    with MatchRouter("a:1,b:2,c:3", lambda a: FakeChannel(a), settings=settings) as router:
        assert router.book.down_seconds == 3.0
        assert router.note_failure("m", FakeError(UNAVAILABLE, "refused"), "a:1") == "b:2"
        assert router.book.down() == ["a:1"]
        assert router.note_failure("m", refused("m", None), "b:2") == "c:3"
        assert router.book.down() == ["a:1"]  # a refusal comes from a live replica
        assert router.note_failure("m", refused("m", None), "c:3") == "b:2"
        router.note_served("m", "a:1")
        assert router.book.down() == []


def test_the_down_mark_lasts_the_default_deadline() -> None:
    assert pytest.approx(DEFAULT_DEADLINE_SECONDS) == DOWN_SECONDS


def test_the_route_book_is_bounded_least_recently_used_first() -> None:
    book = RouteBook(("a:1",), max_matches=3)
    for match_id in ("m1", "m2", "m3"):
        book.learn(match_id, "o:1")
    book.address_for("m1")  # used: kept
    book.learn("m4", "o:1")
    assert len(book) == 3
    assert book.owner("m2") is None
    assert [book.owner(m) for m in ("m1", "m3", "m4")] == ["o:1"] * 3


class FakeChannel:
    def __init__(self, address: str) -> None:
        self.address = address
        self.closed = False


def test_the_channel_pool_is_bounded_and_closes_what_it_drops() -> None:
    dropped: list[FakeChannel] = []
    pool = ChannelPool(FakeChannel, dropped.append, max_channels=2)
    a = pool.get("a:1")
    assert pool.get("a:1") is a
    pool.get("b:2")
    pool.get("a:1")  # used: b is now the least recently used
    pool.get("c:3")
    assert [c.address for c in dropped] == ["b:2"]
    assert pool.addresses() == ["a:1", "c:3"]
    assert len(pool.close()) == 2
    with pytest.raises(ValueError, match="closed"):
        pool.get("a:1")
    with pytest.raises(ValueError, match="max_channels"):
        ChannelPool(FakeChannel, dropped.append, max_channels=0)


# ----------------------------------------------------------------------------- one call's course


def test_the_backoff_doubles_to_its_cap_with_jitter() -> None:
    backoff = RouteBackoff(first=0.05, cap=0.8)
    assert [backoff.step(n) for n in (1, 2, 3, 4, 5, 6, 100)] == [
        0.05, 0.1, 0.2, 0.4, 0.8, 0.8, 0.8,
    ]  # fmt: skip
    rng = random.Random(1)
    delays = [backoff.delay(3, rng) for _ in range(200)]
    assert 0.1 <= min(delays) < 0.12 and 0.18 < max(delays) <= 0.2
    with pytest.raises(ValueError):
        RouteBackoff(first=0, cap=1)
    with pytest.raises(ValueError):
        RouteBackoff(first=2, cap=1)


@pytest.mark.parametrize(
    ("deadline", "attempt", "hops"), [(0, None, 3), (-1, None, 3), (5, 0, 3), (5, None, -1)]
)
def test_bad_call_settings_are_refused(deadline, attempt, hops) -> None:
    with pytest.raises(ValueError):
        check_settings(deadline, attempt, hops)


def plan(book: RouteBook, clock: FakeClock, **options) -> CallPlan:
    return CallPlan("m", book, clock=clock, rng=random.Random(0), **options)


def test_a_redirect_is_followed_at_once_and_learned() -> None:
    book, clock = RouteBook(("a:1", "b:2")), FakeClock()
    p = plan(book, clock)
    assert p.starting() == "a:1"
    assert p.failed(refused("m", Owner("r2", "c:3"))) == 0.0
    assert p.starting() == "c:3"
    assert book.owner("m") == "c:3"
    p.served()
    assert book.owner("m") == "c:3"


def test_no_owner_backs_off_to_the_next_entry() -> None:
    book, clock = RouteBook(("a:1", "b:2")), FakeClock()
    book.learn("m", "c:3")
    p = plan(book, clock)
    assert p.starting() == "c:3"
    wait = p.failed(FakeError(UNAVAILABLE, "connection refused"))  # the owner died
    assert 0.025 <= wait <= 0.05
    assert book.owner("m") is None
    assert p.starting() in ("a:1", "b:2")
    entry = p.address
    wait = p.failed(refused("m", None))  # being taken over
    assert 0.05 <= wait <= 0.1
    assert p.address != entry  # the next entry


def test_redirect_loops_and_long_chains_are_cut() -> None:
    book, clock = RouteBook(("a:1",)), FakeClock()
    p = plan(book, clock)
    p.starting()
    assert p.failed(refused("m", Owner("b", "b:2"))) == 0.0
    p.starting()
    assert p.failed(refused("m", Owner("a", "a:1"))) > 0  # back to a: a loop, back off
    assert "a:1 → b:2 → a:1" in p.loop
    # A chain of distinct redirects: at most max_hops in a row.
    p = plan(RouteBook(("a:1",)), clock, max_hops=2)
    p.starting()
    assert p.failed(refused("m", Owner("b", "b:2"))) == 0.0
    p.starting()
    assert p.failed(refused("m", Owner("c", "c:3"))) == 0.0
    p.starting()
    assert p.failed(refused("m", Owner("d", "d:4"))) > 0


def test_the_call_s_own_failures_are_its_answer() -> None:
    book, clock = RouteBook(("a:1",)), FakeClock()
    p = plan(book, clock)
    p.starting()
    missing = FakeError(grpc.StatusCode.NOT_FOUND, "no match m")
    with pytest.raises(FakeError) as caught:
        p.failed(missing)
    assert caught.value is missing


def test_a_non_idempotent_call_is_sent_again_only_after_a_refusal() -> None:
    book, clock = RouteBook(("a:1", "b:2")), FakeClock()
    p = plan(book, clock, idempotent=False)
    p.starting()
    assert p.failed(refused("m", None)) > 0  # refused: nothing done, try elsewhere
    p.starting()
    assert p.failed(refused("m", Owner("r", "c:3"))) == 0.0
    p.starting()
    lost = FakeError(UNAVAILABLE, "connection reset")  # maybe applied: not again
    with pytest.raises(FakeError):
        p.failed(lost)


def test_the_deadline_ends_the_call_with_no_route() -> None:
    book, clock = RouteBook(("a:1", "b:2")), FakeClock()
    p = plan(book, clock, deadline_seconds=1.0)
    attempts = 0
    with pytest.raises(NoRoute) as caught:
        while True:
            p.starting()
            attempts += 1
            assert p.attempt_timeout() >= MIN_ATTEMPT_SECONDS
            clock.now += p.failed(FakeError(UNAVAILABLE, "connection refused")) + 0.01
    assert clock.now - 100.0 <= 1.0 + 0.01
    assert attempts >= 4
    error = caught.value
    assert error.code() == UNAVAILABLE
    assert error.details().startswith("match m: no table replica served it within 1 s")
    assert "a:1, b:2" in error.details()
    assert "last: UNAVAILABLE: connection refused" in error.details()
    assert error.trailing_metadata() == ()


def test_an_attempt_s_timeout_is_capped_and_within_the_deadline() -> None:
    book, clock = RouteBook(("a:1",)), FakeClock()
    p = plan(book, clock, deadline_seconds=2.0, attempt_seconds=0.5)
    assert p.attempt_timeout() == 0.5
    clock.now += 1.8
    assert p.attempt_timeout() == pytest.approx(0.2)
    clock.now += 5
    assert p.attempt_timeout() == MIN_ATTEMPT_SECONDS
