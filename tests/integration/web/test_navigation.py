"""Every page a person plays from leads to My matches (a person cannot miss their past
matches and their replays)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("page", ["/", "/table.html", "/tournament.html", "/my-matches.html"])
def test_the_pages_link_my_matches(client, page: str) -> None:
    reply = client.get(page)
    assert reply.status_code == 200
    assert '<a href="/my-matches.html">My matches</a>' in reply.text
