"""send_seat refuses a seat its fleet could not play before anything is queued."""

import pytest

from hebei.fleet.client import send_seat
from hebei.fleet.ticket import SeatTicket


@pytest.mark.parametrize(
    ("policy", "level", "message"),
    [("genius", None, "unknown policy 'genius'"), ("expert", 99, "level")],
)
def test_an_unknown_policy_or_level_is_refused_before_queueing(policy, level, message) -> None:
    ticket = SeatTicket("127.0.0.1:1", "m-1", 0, "token", policy, level=level)
    # No broker is configured in unit tests: reaching send_task would fail differently.
    with pytest.raises(ValueError, match=message):
        send_seat(ticket)
