"""The finished-match reader (:class:`hebei.seatclient.match_feed.TableFeed`, behind the bot
service's reviews, the web replayer and ``hebei review``) over several table replicas: its
whole read (GetMatch, then Spectate to the end) is one routed call at the match's owner."""

from __future__ import annotations

import pytest

from hebei.common.errors import FailedPrecondition, Unavailable
from hebei.common.routing import MatchRouter
from hebei.seatclient.match_feed import TableFeed
from tests.integration.common.routed_engine import entries, running_engine


def test_a_finished_match_is_read_at_its_owner() -> None:
    with running_engine("a", "b") as engine, MatchRouter(entries(engine)) as router:
        engine.add("m-1", "b")
        engine.append("m-1", 3, end=True)
        feed = TableFeed(router, timeout=5.0)
        finished = feed.finished_match("m-1")
        assert finished.info.match_id == "m-1"
        assert [e.type for e in finished.events] == ["match_end"]  # draws are not kept
        assert engine.replicas["b"].by_method["Spectate"] == 1
        # It moved: the next read follows the refusal to the new owner.
        engine.move("m-1", "a")
        assert feed.finished_match("m-1").info.match_id == "m-1"
        assert engine.replicas["a"].by_method["Spectate"] == 1
        assert router.owner("m-1") == engine.replicas["a"].address
        engine.add("m-2", "a")  # live: refused by the reader itself, not retried
        with pytest.raises(FailedPrecondition, match="has not ended"):
            feed.finished_match("m-2")
        assert engine.replicas["a"].by_method["GetMatch"] == 3


def test_a_match_nobody_serves_is_unavailable() -> None:
    with running_engine("a") as engine, MatchRouter(entries(engine)) as router:
        engine.add("m-1", "a")
        engine.move("m-1", None)
        with pytest.raises(Unavailable, match="did not answer: UNAVAILABLE"):
            TableFeed(router, timeout=1.0).finished_match("m-1")
