"""People registering through the gateway are counted by their own addresses at matchmaking:
the gateway forwards each person's address (``hebei-client``) beside its service token, so a
busy tournament page is not one address for matchmaking's registration bounds (20 for one
tournament from one address in 10 minutes)."""

from __future__ import annotations

from hebei.matchmaking.registration import MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT
from tests.integration.web.harness import gateway, open_tournament
from tests.integration.web.test_limits_round2 import client_at

PEOPLE = MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT + 2


def register_all(url: str, tournament_id: str) -> list[int]:
    codes = []
    for n in range(PEOPLE):
        with client_at(url, f"127.0.0.{20 + n}") as http:
            reply = http.post(
                f"/api/tournaments/{tournament_id}/register", json={"name": f"Person {n}"}
            )
            codes.append(reply.status_code)
    return codes


def test_people_behind_the_gateway_are_counted_by_their_own_addresses(web_stack) -> None:
    tournament_id = open_tournament(web_stack, bots=0)
    with gateway(web_stack, service_token=web_stack.service_token) as web:
        assert register_all(web.url, tournament_id) == [201] * PEOPLE


def test_without_the_service_token_the_gateway_is_one_address(web_stack) -> None:
    """What the forwarding changes: the gateway's own address runs out after the bound."""
    tournament_id = open_tournament(web_stack, bots=0)
    with gateway(web_stack, service_token=None) as web:
        codes = register_all(web.url, tournament_id)
    assert (
        codes[:MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT]
        == [201] * MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT
    )
    assert codes[MAX_REGISTRATIONS_PER_ADDRESS_AND_TOURNAMENT:] == [429, 429]
