"""The stack benchmark's soak verdicts: memory growth after the warm-up against the bound,
the p99 of each window, and the errors counted from the services' metrics."""

from __future__ import annotations

from hebei.bench.stack import _soak_summary
from hebei.bench.stack_metrics import run_errors

MIB = 2**20


def window(p99: float | None) -> dict:
    return {"seconds": 60.0, "hands_per_second": 5.0, "seat_rtt_p99_ms": p99}


def test_memory_grown_during_the_warm_up_is_not_held_against_a_process() -> None:
    start = {"table": (30 * MIB, 60 * MIB), "bots-1/7": (40 * MIB, 70 * MIB)}
    samples = {
        "table": [30 * MIB, 90 * MIB, 91 * MIB, 92 * MIB, 93 * MIB, 94 * MIB],  # warm: 90
        "bots-1/7": [40 * MIB] * 6,
    }
    end = {"table": (100 * MIB, 130 * MIB), "bots-1/7": (110 * MIB, 140 * MIB)}
    summary = _soak_summary(start, samples, end, [window(10.0)], {"table": 64}, bound_mib=64)
    table, bots = summary["memory"]["table"], summary["memory"]["bots-1/7"]
    assert (table["start_mib"], table["warm_mib"], table["end_mib"]) == (30, 90, 100)
    assert (table["start_rss_mib"], table["end_rss_mib"]) == (60, 130)
    assert table["growth_mib"] == 10 and table["max_mib"] == 100
    assert bots["growth_mib"] == 70  # grew after its warm-up
    assert summary["memory_within_bound"] is False
    assert bots["bound_mib"] == 64
    assert _soak_summary(start, samples, end, [window(10.0)], {}, 80)["memory_within_bound"]
    assert _soak_summary(start, samples, end, [window(10.0)], {"bots-1/7": 70}, 64)[
        "memory_within_bound"
    ]  # a component's own bound (PostgreSQL's: larger by its shared buffers)


def test_the_most_a_process_held_counts_its_start() -> None:
    # PostgreSQL's backends of the warm-up close: its PSS falls below where it started (a
    # clean-clone CI run saw 180.3 at the start and at most 169.2 later, max_mib said 169.2).
    start = {"postgres": (180 * MIB, 200 * MIB)}
    samples = {"postgres": [170 * MIB, 169 * MIB, 168 * MIB]}
    end = {"postgres": (166 * MIB, 190 * MIB)}
    memory = _soak_summary(start, samples, end, [window(10.0)], {}, 64)["memory"]["postgres"]
    assert memory["max_mib"] == 180 >= memory["start_mib"]
    assert memory["growth_mib"] == 166 - 170  # after its warm-up, as before


def test_p99_is_stable_unless_a_window_after_the_first_doubles_their_median() -> None:
    def verdict(p99s: list[float | None]) -> dict:
        return _soak_summary({}, {}, {}, [window(p) for p in p99s], {}, bound_mib=64)

    steady = verdict([500.0, 10.0, 12.0, 11.0, None, 19.0])  # the first window warms up
    assert steady["p99_stable"] and steady["seat_rtt_p99_ms_median"] == 12.0
    assert steady["seat_rtt_p99_ms_max"] == 19.0
    drifting = verdict([10.0, 10.0, 12.0, 11.0, 30.0])
    assert not drifting["p99_stable"] and drifting["seat_rtt_p99_ms_max"] == 30.0
    assert not verdict([])["p99_stable"]  # no window measured: nothing shown stable


def test_errors_count_what_went_wrong_in_every_service() -> None:
    def sample(name: str, value: float, **labels: str):
        return ((name, tuple(sorted(labels.items()))), value)

    table = dict(
        [
            sample("grpc_server_handled_total", 900, grpc_code="OK", grpc_method="Play"),
            sample("grpc_server_handled_total", 4, grpc_code="CANCELLED", grpc_method="Play"),
            sample("grpc_server_handled_total", 2, grpc_code="UNAVAILABLE", grpc_method="Play"),
            sample("hebei_table_auto_plays_total", 3, reason="timeout"),
            sample(
                "hebei_table_outbox_deliveries_total", 50, kind="settlement", result="delivered"
            ),
            sample("hebei_table_outbox_deliveries_total", 1, kind="settlement", result="retry"),
        ]
    )
    ledger = dict([sample("grpc_server_handled_total", 1, grpc_code="INTERNAL")])
    bots = dict([sample("hebei_bot_failures_total", 5, outcome="refused")])
    errors = run_errors(
        {"table": table, "ledger": ledger}, bots, ["the ledger exited"], unfinished=1
    )
    assert errors == {
        "total": 14, "rpc_errors": 3, "auto_plays": 3, "outbox_not_delivered_first_time": 1,
        "bot_failures": 5, "unfinished_matches": 1, "processes_died": 1,
        "died": ["the ledger exited"],
    }  # fmt: skip
    clean = dict([sample("grpc_server_handled_total", 9, grpc_code="OK")])
    assert run_errors({"table": clean}, {}, []) == {"total": 0}
