"""Four people and twelve bots play a 3-round Swiss tournament on a loaded machine: two people
in Chromium (registered on the tournament page, carried from round to round by it), two in the
terminal (``hebei tournament join``, started before the organiser starts the event). Every
person plays every hand of every round themselves: the engine's logs show no decision of
theirs auto-played and no missed round, and each ends on the final standings.

The machine is loaded on purpose (four busy processes beside the test's own, so a load of 4
and more on these two cores): a flow a person can miss under load is not done. Every wait is
for a state, with generous bounds; nothing is timed."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.duration_pb2 import Duration

from hebei.v1 import matchmaking_pb2 as mm
from hebei.v1 import types_pb2 as pb
from tests.e2e.conftest import hebei_program
from tests.e2e.test_tournament_join import OWN_ACTIONS, Person, engine_events
from tests.e2e.web.test_pages import state_of
from tests.integration.web.harness import (
    _shared,
    choose,
    open_tournament,
    operator_stub,
    start_tournament,
)

ROUNDS = 3
EVENT_SECONDS = 1500  # bound on the whole event (3 rounds of 1 hand) on a loaded machine
BUSY_PROCESSES = 4
BURN = "import time\nend = time.time() + {seconds}\nwhile time.time() < end:\n    pass\n"


@pytest.fixture
def loaded_machine() -> Iterator[None]:
    """Four processes that keep a core busy each, for at most the event's bound."""
    burners = [
        subprocess.Popen([sys.executable, "-c", BURN.format(seconds=EVENT_SECONDS + 120)])
        for _ in range(BUSY_PROCESSES)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait(30)


class BrowserPerson:
    """A person at the tournament page in their own browser context: answers each decision
    once, the way the page offers it (a pass key, a tile's click)."""

    def __init__(self, browser: Any, url: str, name: str, size: tuple[int, int]) -> None:
        self.context = browser.new_context(
            viewport={"width": size[0], "height": size[1]}, bypass_csp=True
        )
        self.context.set_default_timeout(120_000)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.name = name
        self.answered: set[str] = set()
        self.took_back = 0
        self.page.goto(url)

    def register(self) -> str:
        page = self.page
        page.wait_for_selector("#register:not(.hidden)")
        page.fill("#register input[name=name]", self.name)
        page.click("#register button[type=submit]")
        page.wait_for_selector("#credentials:not(.hidden) #my-secret")
        page.wait_for_selector("#you[data-phase=registration]")
        return page.locator("#my-player-id").inner_text()

    def finished(self) -> bool:
        return self.page.locator("#you [data-phase=final]").count() > 0

    def step(self) -> None:
        """Answer the open decision if there is one not answered yet (never wait on it)."""
        page = self.page
        if page.locator("#you[data-phase=playing]").count() == 0:
            return
        state = state_of(page)
        if state is None or state["finished"]:
            return
        if state.get("auto"):
            self.took_back += 1  # a clock ran out: the test fails on it below
            page.keyboard.press("t")
            return
        decision = str(state["decision_id"] or "")
        if not decision or decision in self.answered:
            return
        if any(option["kind"] == "pass" for option in state["options"]):
            page.keyboard.press("x")
        elif any(t["discard"] for t in state["hand"]):
            tile = choose(state, pong=False)
            page.click(f"#hand .tile.can[data-tile='{tile}'] >> nth=0")
        else:
            return
        self.answered.add(decision)

    def close(self, artifacts: Path) -> None:
        self.page.screenshot(path=str(artifacts / f"people-{self.name}.png"), full_page=True)
        self.context.close()


def test_four_people_play_every_hand_of_a_swiss_tournament_on_a_loaded_machine(
    browser: Any, site: Any, web_stack: Any, artifacts: Path, loaded_machine: None, tmp_path: Path
) -> None:
    control = pb.TimeControl(per_decision=Duration(seconds=20), time_bank=Duration(seconds=60))
    tournament_id = open_tournament(
        web_stack,
        bots=12,
        rounds=ROUNDS,
        hands=1,
        seating=mm.SEATING_MODE_SWISS,
        time_control=control,
        round_break=Duration(seconds=5),
    )
    stub = operator_stub(web_stack)
    url = f"{site.url}tournament.html?id={tournament_id}"
    people: dict[str, str] = {}  # player id -> name

    browsers = [
        BrowserPerson(browser, url, "Lin", (1366, 768)),
        BrowserPerson(browser, url, "Mei", (390, 844)),
    ]
    terminals: list[Person] = []
    threads: list[threading.Thread] = []
    codes: dict[str, int | None] = {}
    try:
        for person in browsers:
            people[person.register()] = person.name
        env = {**os.environ, "COLUMNS": "160"}
        for name in ("Wei", "Jun"):
            registered = stub.Register(
                mm.RegisterRequest(tournament_id=tournament_id, person=mm.PersonEntrant(name=name))
            )
            pid, secret = registered.player.player_id, registered.player_secret
            people[pid] = name
            argv = [hebei_program(), "tournament", "join", tournament_id, "--player", pid,
                    "--secret", secret, "--address", web_stack.address("matchmaking")]  # fmt: skip
            person = Person(argv, env, tmp_path)
            terminals.append(person)
            # Following the tournament before the organiser starts it.
            assert person.play(timeout=180, until="It starts when") is None, person.text

            def run(person: Person = person, name: str = name) -> None:
                codes[name] = person.play(timeout=EVENT_SECONDS)

            threads.append(threading.Thread(target=run, daemon=True))
        start_tournament(web_stack, tournament_id)
        for thread in threads:
            thread.start()

        deadline = time.monotonic() + EVENT_SECONDS
        while not all(person.finished() for person in browsers):
            assert time.monotonic() < deadline, "the event did not end in time"
            for person in browsers:
                person.step()
            browsers[0].page.wait_for_timeout(100)
        for thread in threads:
            thread.join(timeout=300)
        for person, name in zip(terminals, ("Wei", "Jun"), strict=True):
            assert codes.get(name) == 0, f"{name}: {codes.get(name)}\n{person.text[-3000:]}"
            assert "final standings" in person.text and "auto-played" not in person.text
        for person in browsers:
            assert person.took_back == 0, f"{person.name}'s clock ran out"
            assert "The tournament is over" in person.page.locator("#you-status").inner_text()
            assert not person.errors, person.errors

        # The engine: every person sat at a table each round, and every decision of their
        # seat was their own (none auto-played, no round missed).
        tournament = stub.GetTournament(mm.GetTournamentRequest(tournament_id=tournament_id))
        assert tournament.tournament.status == mm.TOURNAMENT_STATUS_FINISHED
        for player in tournament.tournament.players:
            if player.player_id in people:
                assert not player.missed_rounds and player.status == mm.PLAYER_STATUS_ACTIVE
        seating = stub.GetSeating(mm.GetSeatingRequest(tournament_id=tournament_id))
        assert len(seating.rounds) == ROUNDS
        schema = _shared["env"]["HEBEI_TABLE_SCHEMA"]
        played = dict.fromkeys(people.values(), 0)
        for round_ in seating.rounds:
            seats = {
                (table.match_id, seat.seat): people[seat.player_id]
                for table in round_.tables
                for seat in table.seats
                if seat.player_id in people
            }
            assert sorted(seats.values()) == sorted(people.values()), round_.round_no
            for (match_id, seat), name in seats.items():
                events = [
                    e
                    for e in engine_events(_shared["db"], schema, match_id)
                    if e.get("seat") == seat
                ]
                assert not [e for e in events if e["type"] == "seat_auto" or e.get("auto")], (
                    name,
                    round_.round_no,
                    events,
                )
                assert [e for e in events if e["type"] in OWN_ACTIONS], (name, events)
                played[name] += 1
        assert played == dict.fromkeys(people.values(), ROUNDS)
        print("load average at the end:", os.getloadavg())
    finally:
        for person in terminals:
            person.kill()
        for person in browsers:
            person.close(artifacts)
