"""The gateway's hint bound and its settings, without services."""

from __future__ import annotations

from collections import OrderedDict

import pytest

from hebei.common.config import ConfigError
from hebei.v1 import types_pb2 as pb
from hebei.web.advice import Advisor, Bucket, check_open_decision
from hebei.web.backend import HttpError
from hebei.web.config import WebConfig

ADDRESSES = {"HEBEI_WEB_TABLE_ADDRESS": "h:1", "HEBEI_WEB_MATCHMAKING_ADDRESS": "h:2"}


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_bucket_gives_a_burst_then_the_rate() -> None:
    clock = Clock()
    bucket = Bucket(rate=1 / 3, burst=2, clock=clock)  # 20 a minute, 2 at once
    assert bucket.take() == 0.0 and bucket.take() == 0.0
    wait = bucket.take()
    assert wait == pytest.approx(3.0)
    clock.now += 1.5
    assert bucket.take() == pytest.approx(1.5)  # a refused take costs nothing
    clock.now += 1.5
    assert bucket.take() == 0.0
    clock.now += 3600  # never more than the burst
    assert [bucket.take() for _ in range(3)][:2] == [0.0, 0.0] and bucket.tokens < 1


def test_the_settings_read_the_bot_service_and_the_bounds() -> None:
    config = WebConfig.from_env(ADDRESSES)
    assert config.botservice_address is None
    assert (config.hints_per_minute, config.hint_burst, config.max_advice_calls) == (20.0, 5, 4)
    config = WebConfig.from_env(
        {
            **ADDRESSES,
            "HEBEI_WEB_BOTSERVICE_ADDRESS": "h:3",
            "HEBEI_WEB_HINTS_PER_MINUTE": "6",
            "HEBEI_WEB_HINT_BURST": "2",
        }
    )
    assert config.botservice_address == "h:3" and config.hints_per_minute == 6.0
    with pytest.raises(ConfigError, match="BOTSERVICE_ADDRESS"):
        WebConfig.from_env({**ADDRESSES, "HEBEI_WEB_BOTSERVICE_ADDRESS": "nohost"})
    with pytest.raises(ConfigError, match="HINT_BURST"):
        WebConfig.from_env({**ADDRESSES, "HEBEI_WEB_HINT_BURST": "0"})


def _refusal(obs: pb.Observation | None, seat: int = 0) -> HttpError:
    with pytest.raises(HttpError) as caught:
        check_open_decision(obs, seat)
    return caught.value


def test_a_hint_needs_the_seats_own_open_decision() -> None:
    """Refused before the bot service is asked: no observation yet, another seat's
    observation, no open decision, a seat played by auto-play."""
    assert _refusal(None).status == 409
    seats = [pb.SeatView(seat=s) for s in range(4)]
    open_decision = [pb.Action(kind=pb.ACTION_KIND_DISCARD, tile=pb.TILE_1M)]
    mine = pb.Observation(seat=0, seats=seats, decision_id=7, legal_actions=open_decision)
    assert check_open_decision(mine, 0) is mine
    other = pb.Observation(seat=1, seats=seats, decision_id=7, legal_actions=open_decision)
    assert _refusal(other, seat=0).status == 403
    idle = pb.Observation(seat=0, seats=seats)
    assert "nothing to decide" in _refusal(idle).message
    seats[0].auto_played = True
    auto = pb.Observation(seat=0, seats=seats, decision_id=7, legal_actions=open_decision)
    assert "auto-play" in _refusal(auto).message


def test_forget_drops_every_gone_seat_also_one_that_only_asked() -> None:
    advisor = Advisor(WebConfig.from_env(ADDRESSES), backend=None, clock=Clock())  # type: ignore[arg-type]
    advisor.buckets = {"a": Bucket(1, 1, Clock()), "b": Bucket(1, 1, Clock())}
    advisor.hints = {"a": OrderedDict(), "b": OrderedDict(), "c": OrderedDict()}  # c: refused
    advisor.forget({"a"})
    assert set(advisor.buckets) == {"a"} and set(advisor.hints) == {"a"}
