"""`hebei tournament …` as an organiser runs it, against the stack `hebei up` runs (found
through its stack file): create, register, start, watch, standings, status, penalty, actions,
ratings — and bad input in one line."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from tests.e2e.conftest import hebei_program
from tests.e2e.test_up import Up, configured_env  # noqa: F401 (a fixture)
from tests.integration.stack.conftest import stack_env  # noqa: F401 (a fixture)


def hebei(env: dict[str, str], cwd: Path, *args: str, timeout: float = 300):
    return subprocess.run(
        [hebei_program(), *args], env=env, cwd=cwd, capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip


def test_an_organiser_runs_a_tournament_from_the_command_line(
    configured_env: dict[str, str],  # noqa: F811
    data_dir: Path,
):
    env = {k: v for k, v in configured_env.items() if k not in ("HEBEI_OPERATOR_TOKEN",)}
    up = Up(env, data_dir, "--workers", "1")
    try:
        up.wait_for("ready:")
        created = hebei(env, data_dir, "tournament", "create", "--name", "CLI cup", "--rounds",
                        "2", "--hands", "1", "--mode", "random", "--seed", "5")  # fmt: skip
        assert created.returncode == 0, created.stderr
        tid = created.stdout.strip()
        assert tid.startswith("t-")
        registered = hebei(env, data_dir, "tournament", "register", tid, "--bot", "efficiency",
                           "--count", "6", "--json")  # fmt: skip
        assert registered.returncode == 0, registered.stderr
        players = json.loads(registered.stdout)
        assert len(players) == 6
        person = hebei(env, data_dir, "tournament", "register", tid, "--person", "Mei")
        assert person.returncode == 0 and len(person.stdout.split()) == 2
        started = hebei(env, data_dir, "tournament", "start", tid, "--as", "Lin")
        assert started.returncode == 0, started.stderr
        assert "running, round 1 of 2" in started.stdout
        watched = hebei(env, data_dir, "tournament", "watch", tid, timeout=600)
        assert watched.returncode == 0, watched.stderr
        assert "final standings" in watched.stdout and "rounds" in watched.stdout
        standings = hebei(env, data_dir, "tournament", "standings", tid, "--json")
        ranking = json.loads(standings.stdout)["ranking"]
        ranked = [r for r in ranking if not r.get("filler")]
        assert [r["standing"]["rank"] for r in ranked] == list(range(1, 8))
        penalty = hebei(env, data_dir, "tournament", "penalty", tid, players[0]["player_id"], "5",
                        "--reason", "slow play", "--by", "Lin")  # fmt: skip
        assert penalty.returncode == 0 and "5 points" in penalty.stdout, penalty.stderr
        actions = hebei(env, data_dir, "tournament", "actions", tid, "--json")
        kinds = [(a["action"], a["actor"]) for a in json.loads(actions.stdout)["actions"]]
        assert ("start", "Lin") in kinds and ("penalty", "Lin") in kinds
        status = hebei(env, data_dir, "tournament", "status", tid)
        assert "finished" in status.stdout and "seating quality" in status.stdout
        ratings = hebei(env, data_dir, "tournament", "ratings", "--json")
        assert ratings.returncode == 0, ratings.stderr

        unknown = hebei(env, data_dir, "tournament", "status", "t-missing")
        assert unknown.returncode == 1 and unknown.stderr.startswith("hebei: NOT_FOUND")
        assert len(unknown.stderr.strip().splitlines()) == 1
        bad = hebei(env, data_dir, "tournament", "create", "--name", "x", "--mode", "chaos")
        assert bad.returncode == 2 and "--mode must be one of" in bad.stderr
        up.process.send_signal(signal.SIGTERM)
        code, stderr = up.finish()
        assert code == 0, stderr
        gone = hebei(env, data_dir, "tournament", "status", tid)
        assert gone.returncode == 1 and "unreachable" in gone.stderr
    finally:
        up.kill()
