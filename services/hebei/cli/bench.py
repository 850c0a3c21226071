"""``hebei bench ...``: benchmarks against the targets of ARCHITECTURE.md.

``bench`` is a sub-app; each area adds its own command to :data:`bench_app`
(``rules`` here). The measuring lives in :mod:`hebei.bench`; this only prints.
"""

from __future__ import annotations

import functools
import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from hebei.cli import app
from hebei.cli._util import check_range, fail, load_json_file
from hebei.rules.profile import get_profile

# `hebei bench bots` keeps every decision's times for the percentiles, about 120 bytes a
# decision (measured; some 2,000 decisions a seed of 8 hands): 0.4 GB a line-up at 1,600 seeds,
# 2.5 GB at the bound. Hands per match, here and in `bench ratings`: at most MAX_HANDS.
MIN_SEEDS, MAX_SEEDS, MAX_HANDS = 2, 10_000, 64

bench_app = typer.Typer(
    help="Benchmarks (speed against the ARCHITECTURE.md targets).", no_args_is_help=True
)
app.add_typer(bench_app, name="bench")

# How each metric of the rules bench is shown: label and number format.
RULES_ROWS = {
    "shanten_us": ("shanten, µs/call", "{:.2f}"),
    "shanten_first_pass_us": ("shanten first pass (filling tables), µs/call", "{:.2f}"),
    "mahjong_lib_shanten_us": ("PyPI mahjong shanten, µs/call", "{:.2f}"),
    "shanten_speedup_vs_mahjong": ("shanten speed-up vs mahjong", "{:.1f}×"),
    "win_check_us": ("win check, µs/call", "{:.2f}"),
    "ukeire_us": ("ukeire (13 tiles), µs/call", "{:.1f}"),
    "discard_options_us": ("discard options (14 tiles), µs/call", "{:.1f}"),
    "discard_options_first_pass_us": ("discard options first pass, µs/call", "{:.1f}"),
    "random_hands_per_second": ("self-play, random players, hands/s", "{:.0f}"),
    "classic_random_hands_per_second": (
        "self-play, classic rules, random players, hands/s",
        "{:.0f}",
    ),
}


def rules_table(result: dict[str, object]) -> Table:
    """The rich table of a rules bench result: metric, value, target, ratio."""
    from hebei.bench.rules import TARGETS

    table = Table(
        title=f"hebei bench rules: {result['hands']:,} random hands, seed {result['seed']}",
        caption="ratio ≥ 1 meets the target",
    )
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("target", justify="right")
    table.add_column("ratio", justify="right")
    for key, (label, fmt) in RULES_ROWS.items():
        value = result.get(key)
        if value is None:
            table.add_row(label, "n/a", "", "")
            continue
        target = TARGETS.get(key)
        ratio = target.ratio(value) if target else None
        ratio_text = "" if ratio is None else f"[{'green' if ratio >= 1 else 'red'}]{ratio:.2f}"
        table.add_row(label, fmt.format(value), str(target or ""), ratio_text)
    return table


@bench_app.command("rules")
def rules_command(
    hands: int = typer.Option(
        100_000, "--hands", "-n", help="Random 14-tile hands to time shanten on, 1-1,000,000."
    ),
    seed: int = typer.Option(20240601, "--seed", "-s", help="Seed of the random hands."),
    repeats: int = typer.Option(3, "--repeats", help="Timed passes, 1-100; the best one counts."),
    play_hands: int = typer.Option(
        1000,
        "--play-hands",
        help="Self-play hands of each rule profile (main, classic), 1-1,000,000.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a table."),
) -> None:
    """Shanten (vs the PyPI mahjong library), win check, ukeire, discard options, self-play
    under the main and the classic rules."""
    from hebei.bench.rules import run_rules_bench

    check_range("--hands", hands, 1, 1_000_000)
    check_range("--repeats", repeats, 1, 100)
    check_range("--play-hands", play_hands, 1, 1_000_000)
    kwargs = {
        "hands": hands,
        "seed": seed,
        "repeats": repeats,
        "ukeire_hands": min(hands, 20_000),
        "discard_hands": min(hands, 5_000),
        "simulated_hands": play_hands,
    }
    if as_json:
        print(json.dumps(run_rules_bench(**kwargs)))
        return
    console = Console()
    with console.status("starting") as status:
        result = run_rules_bench(**kwargs, on_stage=lambda text: status.update(f"{text} ..."))
    console.print(rules_table(result))


def bots_tables(
    results: list[dict], timings: dict[str, dict], cpu_timings: dict[str, dict] | None = None
) -> list[Table]:
    """The rich tables of ``hebei bench bots``: one per line-up, then the comparisons, then
    decision times per policy and level (wall clock, and the deciding thread's CPU time)."""
    tables = []
    for result in results:
        table = Table(
            title=f"{result['title']}: {result['seeds']} seeds x 4 rotations, "
            f"{result['hands']:,} hands ({result['seat_hands']:,} seat-hands), "
            f"{result['seconds']:.0f} s",
            caption="points per hand with 95% interval",
        )
        for column in ("policy", "seats", "seat-hands", "points/hand", "95% CI"):
            table.add_column(column, justify="left" if column == "policy" else "right")
        for p in result["policies"]:
            pph = p["points_per_hand"]
            table.add_row(
                p["policy"],
                str(p["seats"]),
                f"{p['seat_hands']:,}",
                f"{pph['mean']:+.2f}",
                f"± {pph['ci95']:.2f}",
            )
        tables.append(table)
    summary = Table(title="comparisons (points per hand, 95% interval over wall seeds)")
    for column in ("line-up", "comparison", "difference", "95% CI", "low end", "hands"):
        summary.add_column(
            column, justify="left" if column in ("line-up", "comparison") else "right"
        )
    for result in results:
        for c in result["comparisons"]:
            d = c["difference"]
            colour = "green" if c["significant"] else "red"
            summary.add_row(
                result["title"],
                f"{c['stronger']} − {c['weaker']}",
                f"[{colour}]{d['mean']:+.2f}",
                f"± {d['ci95']:.2f}",
                f"{c['low']:+.2f}",
                f"{result['hands']:,}",
            )
    tables.append(summary)
    times = Table(
        title="decision time per policy and level, ms (all line-ups)",
        caption="wall clock; CPU: the deciding thread's CPU time (without the waits for a core)",
    )
    columns = ("policy", "decisions", "median", "p90", "p99", "max", "CPU median", "CPU p99")
    for column in columns:
        times.add_column(column, justify="left" if column == "policy" else "right")
    for spec, t in timings.items():
        c = (cpu_timings or {}).get(spec)
        times.add_row(
            spec,
            f"{t['decisions']:,}",
            f"{t['median']:.3f}",
            f"{t['p90']:.3f}",
            f"{t['p99']:.3f}",
            f"{t['max']:.3f}",
            f"{c['median']:.3f}" if c else "-",
            f"{c['p99']:.3f}" if c else "-",
        )
    tables.append(times)
    return tables


# Warm-up self-play per worker process before timing: the tables as a running bot worker has
# them after a few matches (a cold table makes the first decisions on new shapes slower).
WARM_HANDS = 64


@bench_app.command("bots")
def bots_command(
    seeds: int = typer.Option(
        500, "--seeds", "-n", help="Match seeds (each played 4 times), 2-10,000."
    ),
    hands: int = typer.Option(8, "--hands", help="Hands per match, 1-64."),
    seed: int = typer.Option(
        1, "--seed", "-s", help="Seed of the walls (1: the evaluation walls; see hebei.bench.bots)."
    ),
    lineups: Annotated[
        list[str] | None,
        typer.Option(
            "--lineup", help="Four policies (name or name:level), comma-separated; repeatable."
        ),
    ] = None,
    processes: int = typer.Option(
        0, "--processes", "-p", help="Worker processes; 0 = one per core."
    ),
    check: bool = typer.Option(False, "--check", help="Exit 1 unless each beats the next."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
    profile: str = typer.Option("main", "--profile", help="Rule profile: main or classic."),
) -> None:
    """Policy strength in duplicate play (points per hand, 95% CI) and decision times.

    By default four line-ups: expert against three efficiency, efficiency against three
    expert, the expert's levels at one table, efficiency against three random.
    """
    from hebei.bench.bots import (
        DEFAULT_LINEUPS,
        default_processes,
        lineup_of,
        run_duplicate,
    )
    from hebei.bench.signals import sigterm_as_ctrl_c

    check_range("--seeds", seeds, MIN_SEEDS, MAX_SEEDS)
    check_range("--hands", hands, 1, MAX_HANDS)
    check_range("--processes", processes, 0, 64)
    try:
        rules = get_profile(profile)
    except ValueError as exc:
        fail(f"--profile: {exc}")
    try:
        plans = [lineup_of(x.split(",")) for x in lineups] if lineups else list(DEFAULT_LINEUPS)
    except ValueError as exc:
        fail(str(exc))
    workers = processes or default_processes()
    console = Console(stderr=as_json)
    results = []
    done = 0  # matches of the line-up being played

    def advance(status, title: str) -> None:
        nonlocal done
        done += 1
        status.update(f"{title}: {done}/{4 * seeds} matches")

    try:
        with sigterm_as_ctrl_c():
            for plan in plans:
                with console.status(f"{plan.title}: playing") as status:
                    done = 0
                    results.append(
                        run_duplicate(
                            plan,
                            seeds,
                            hands,
                            seed,
                            WARM_HANDS,
                            on_match=functools.partial(advance, status, plan.title),
                            processes=workers,
                            profile=rules,
                        )
                    )
    except KeyboardInterrupt:
        where = (
            f"interrupted in line-up {len(results) + 1} of {len(plans)}"
            f" ({plans[len(results)].title}), {done} of {4 * seeds} matches played"
        )
        if results and not as_json:  # the line-ups finished are whole: show them
            _print_bots(results, as_json, console)
            finished = "line-up" if len(results) == 1 else f"{len(results)} line-ups"
            fail(f"{where}: the figures above are of the {finished} finished", code=130)
        fail(f"{where}: no figures", code=130)
    holds = _print_bots(results, as_json, console)
    if check and not holds:
        raise typer.Exit(1)


def _print_bots(results: list, as_json: bool, console: Console) -> bool:
    """Print the figures of ``results`` (one JSON object, or the tables); True when every
    ordering holds."""
    from hebei.bench.bots import timings_by_spec

    timings = timings_by_spec(results)
    cpu_timings = timings_by_spec(results, cpu=True)
    bodies = [r.to_json() for r in results]
    holds = all(r["ordering_holds"] for r in bodies)
    if as_json:
        body = {
            "lineups": bodies,
            "decision_ms": timings,
            "decision_cpu_ms": cpu_timings,
            "ordering_holds": holds,
        }
        print(json.dumps(body))
    else:
        for table in bots_tables(bodies, timings, cpu_timings):
            console.print(table)
    return holds


@bench_app.command("pair")
def pair_command(
    base: str = typer.Argument(..., help="`hebei bench bots --json` output before the change."),
    change: str = typer.Argument(..., help="The same run after the change (same walls)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """Pair two `hebei bench bots --json` runs on the same walls, wall by wall: what a change
    to a policy moved, with a much narrower interval than either run alone.

    Both files (at most 32 MiB each) must come from the same --seed, --seeds, --hands,
    line-ups and --profile; anything else is one line and exit code 2.
    """
    from hebei.bench.pairing import PairingError, pair_runs

    try:
        paired = pair_runs(load_json_file(base), load_json_file(change), (base, change))
    except PairingError as exc:
        fail(str(exc))
    if as_json:
        print(json.dumps({"comparisons": [p.to_json() for p in paired]}))
        return
    Console().print(pair_table(paired))


def pair_table(paired: list) -> Table:
    """The rich table of ``hebei bench pair``: each comparison before, after, and paired."""
    table = Table(
        title="the change, wall by wall (points per hand, 95% intervals over the walls)",
        caption="change − base: the comparison's figure after minus before on each wall",
    )
    for column in ("line-up", "comparison", "base", "change", "change − base", "walls moved"):
        table.add_column(column, justify="left" if column in ("line-up", "comparison") else "right")
    for p in paired:
        moved = p.paired
        colour = "green" if moved.low > 0 else "red" if moved.high < 0 else "default"
        table.add_row(
            p.lineup,
            f"{p.stronger} − {p.weaker}",
            f"{p.base.mean:+.3f} ± {p.base.half_width:.3f}",
            f"{p.change.mean:+.3f} ± {p.change.half_width:.3f}",
            f"[{colour}]{moved.mean:+.3f} ± {moved.half_width:.3f}",
            f"{p.differing:,} of {p.walls:,}",
        )
    return table


def ratings_tables(result: dict) -> tuple[Table, Table]:
    """The rich tables of a ratings bench result: the predictions, then the ratings."""
    test = result["test"]
    predictions = Table(
        title=(
            f"hebei bench ratings: {result['train']} training and {test} held-out matches of"
            f" {result['hands_per_match']} hands, seed {result['seed']}"
        ),
        caption="first place on the held-out matches; ± is the 95% interval",
    )
    predictions.add_column("predictor")
    predictions.add_column("top-1 accuracy", justify="right")
    predictions.add_column("log-likelihood / match", justify="right")
    predictions.add_row(
        "ratings (best ordinal)",
        f"{result['top1_accuracy']:.1%} ± {result['top1_ci95']:.1%}",
        f"{result['log_likelihood_per_match']:.3f}",
    )
    predictions.add_row(
        "oracle (designed order)",
        f"{result['oracle_accuracy']:.1%} ± {result['oracle_ci95']:.1%}",
        "",
    )
    predictions.add_row(
        "chance (uniform)",
        f"{result['chance']:.1%}",
        f"{result['uniform_log_likelihood_per_match']:.3f}",
    )
    ratings = Table(title="ratings after training, best first")
    for column in ("rank", "identity", "mu", "sigma", "ordinal", "matches"):
        ratings.add_column(column, justify="left" if column == "identity" else "right")
    for row in result["ratings"]:
        ratings.add_row(
            str(row["rank"]),
            row["rating_id"],
            f"{row['mu']:.2f}",
            f"{row['sigma']:.2f}",
            f"{row['ordinal']:.2f}",
            str(row["matches"]),
        )
    return predictions, ratings


@bench_app.command("ratings")
def ratings_command(
    train: int = typer.Option(
        400, "--train", help="Training matches (rated in order), 1-1,000,000."
    ),
    test: int = typer.Option(
        400, "--test", help="Held-out matches (predicted, not rated), 2-1,000,000."
    ),
    seed: int = typer.Option(1, "--seed", "-s", help="Seed of the walls and line-ups."),
    hands: int = typer.Option(8, "--hands", help="Hands per match, 1-64."),
    pool: str | None = typer.Option(
        None,
        "--pool",
        help="Identities (policy or policy:level), comma-separated, weakest first by design"
        " (default: random,efficiency,expert:1,expert:2,expert:3).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """How well OpenSkill ratings, fitted on bot matches, predict held-out winners."""
    from hebei.bench.ratings import MAX_MATCHES, POOL, check_pool, run_ratings_bench

    check_range("--train", train, 1, MAX_MATCHES)
    check_range("--test", test, 2, MAX_MATCHES)
    check_range("--hands", hands, 1, MAX_HANDS)
    try:
        specs = check_pool(pool.split(",")) if pool is not None else POOL
    except ValueError as exc:
        fail(str(exc))
    console = Console(stderr=as_json)
    with console.status("playing") as status:
        done = [0]

        def advance() -> None:
            done[0] += 1
            status.update(f"{done[0]}/{train + test} matches")

        result = run_ratings_bench(train, test, seed, hands, specs, on_match=advance).to_json()
    if as_json:
        print(json.dumps(result))
        return
    for table in ratings_tables(result):
        console.print(table)


SEATING_COLUMNS = (
    ("players × rounds × mode", None),
    ("repeats", "repeats"),
    ("most met", "most_met"),
    ("wind spread", "wind_spread"),
    ("in a row", "consecutive"),
    ("mean span", "mean_span"),
    ("fillers a table", "fillers_at_a_table"),
    ("slowest round, s", "seconds"),
    ("lower bound: repeats / most", None),
    ("reference: repeats / most / in a row", None),
)


def seating_table(figures: list, seed: int, reference: str) -> Table:
    """The rich table of ``hebei bench seating``: one row a case."""
    table = Table(
        title=f"hebei bench seating: seed {seed}; reference local search {reference}",
        caption="mean span: standings places at a swiss table (ideal 3); in a row: pairs that "
        "met in consecutive rounds",
    )
    for label, _ in SEATING_COLUMNS:
        table.add_column(label, justify="left" if label.startswith("players") else "right")
    for f in figures:
        row = [f"{f.players} × {f.rounds} × {f.mode}"]
        for _, key in SEATING_COLUMNS[1:-2]:
            value = getattr(f, key)
            row.append("" if value is None else f"{value:.2f}" if key == "seconds" else str(value))
        row.append(f"{f.bound_repeats} / {f.bound_most}")
        row.append(
            ""
            if f.reference_repeats is None
            else f"{f.reference_repeats} / {f.reference_most} / {f.reference_consecutive}"
        )
        table.add_row(*row)
    return table


@bench_app.command("seating")
def seating_command(
    seed: int = typer.Option(1, "--seed", "-s", help="Seed of every case."),
    reference_seconds: float = typer.Option(
        0.0,
        "--reference-seconds",
        help="Run the reference local search this long a case (0: the seating's own "
        "iteration budget, and only for fields of up to 768 player-rounds).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """The seating against the lower bounds and a reference local search: repeats, most
    meetings of a pair, wind spread, consecutive repeats and the slowest round, for the
    organiser's fields and the README's grid (swiss+roster: late entrants, withdrawals and
    fillers)."""
    from hebei.bench.seating import run_bench

    check_range("--reference-seconds", reference_seconds, 0.0, 600.0)
    figures = run_bench(seed, reference_seconds=reference_seconds or None)
    reference = f"{reference_seconds:g} s a case" if reference_seconds else "at equal budgets"
    if as_json:
        cases = [f.to_json() for f in figures]
        print(json.dumps({"seed": seed, "reference": reference, "cases": cases}))
        return
    Console(width=max(Console().width, 150)).print(seating_table(figures, seed, reference))


# ---------------------------------------------------------------------------- bench scale

MAX_PACE, MAX_MEASURE, MAX_WARM_UP, MAX_CONFIGURATIONS = 60.0, 3600.0, 600.0, 8


def parse_replicas(text: str) -> tuple[int, ...]:
    """``--table-replicas``: a comma-separated list of engine replica counts, each 1-8, at
    most :data:`MAX_CONFIGURATIONS` of them; ValueError with the reason."""
    from hebei.stack.replicas import MAX_REPLICAS

    parts = [part.strip() for part in text.split(",")]
    if not text.strip() or not all(part.isdigit() for part in parts):
        raise ValueError(f"--table-replicas must be numbers separated by commas, got {text!r}")
    counts = tuple(int(part) for part in parts)
    if len(counts) > MAX_CONFIGURATIONS:
        raise ValueError(f"--table-replicas takes at most {MAX_CONFIGURATIONS} configurations")
    bad = [n for n in counts if not 1 <= n <= MAX_REPLICAS]
    if bad:
        raise ValueError(f"--table-replicas: each must be 1-{MAX_REPLICAS}, got {bad[0]}")
    return counts


@bench_app.command("scale")
def scale_command(
    tables: int = typer.Option(256, "--tables", help="Tables of each configuration, 1-2,048."),
    pace: float = typer.Option(
        2.0,
        "--pace",
        help="Seconds a scripted person takes over each decision (± 25%, seeded), 0.1-60; its"
        " earliest answer must come after the engine's bot pace (0.8 s).",
    ),
    table_replicas: str = typer.Option(
        "1,2,3",
        "--table-replicas",
        help="Engine replicas of each configuration, comma-separated (each 1-8, at most 8"
        " configurations); each runs on a fresh stack, one after another.",
    ),
    people_per_table: int = typer.Option(
        1, "--people-per-table", help="Scripted people at each table, 1-4; bots in the others."
    ),
    measure_seconds: float = typer.Option(
        120.0, "--measure-seconds", help="The measured window, 5-3,600 s, once every table plays."
    ),
    warm_up_seconds: float = typer.Option(
        30.0, "--warm-up-seconds", help="Play before the window, 0-600 s."
    ),
    seed: int = typer.Option(1, "--seed", help="Seed of the scripted people's pace jitter."),
    policy: str = typer.Option("expert", "--policy", help="The bots' policy."),
    processes: int = typer.Option(
        2, "--processes", help="Celery processes of each bot worker, 1-16."
    ),
    hands: int = typer.Option(
        64, "--hands", help="Hands per match, 1-64 (at people's pace a hand takes minutes)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """The scale benchmark at people's pace: TABLES tables of scripted people and bots on 1, 2
    and 3 engine replicas (a fresh stack each): the seat round trip p50/p99 (the people's at
    their client, the bots' at the engine), engine CPU and memory per replica and per live
    table, events and hands a second, every component's CPU, the run's errors, the first
    limit each configuration hits, and the projection to 10,000 players. Exit code 1 when
    the run had errors."""
    from hebei.bench.scale import (
        MAX_TABLES,
        ScaleError,
        ScaleOptions,
        check_pace,
        engine_bot_pace,
        run_scale_bench,
    )
    from hebei.cli.bots import MAX_SESSIONS
    from hebei.fleet.catalogue import POLICY_NAMES

    check_range("--tables", tables, 1, MAX_TABLES)
    check_range("--people-per-table", people_per_table, 1, 4)
    check_range("--processes", processes, 1, 16)
    check_range("--hands", hands, 1, MAX_HANDS)
    for option, value, low, high in (
        ("--pace", pace, 0.1, MAX_PACE),
        ("--measure-seconds", measure_seconds, 5.0, MAX_MEASURE),
        ("--warm-up-seconds", warm_up_seconds, 0.0, MAX_WARM_UP),
    ):
        if not low <= value <= high:
            fail(f"{option} must be {low:g}-{high:g}, got {value:g}")
    if policy not in POLICY_NAMES:
        fail(f"unknown --policy {policy!r}; choose one of {', '.join(POLICY_NAMES)}")
    try:
        replicas = parse_replicas(table_replicas)
        check_pace(pace, engine_bot_pace())
    except ValueError as exc:
        fail(str(exc))
    options = ScaleOptions(
        tables=tables, pace=pace, table_replicas=replicas, people_per_table=people_per_table,
        measure_seconds=measure_seconds, warm_up_seconds=warm_up_seconds, seed=seed,
        policy=policy, worker_processes=processes, max_sessions=MAX_SESSIONS, hands=hands,
    )  # fmt: skip
    console = Console(stderr=True)
    try:
        with console.status("starting") as spinner:
            result = run_scale_bench(
                options,
                status=lambda text: console.print(f"[dim]{text}…"),
                progress=spinner.update,
            )
    except ScaleError as exc:
        fail(str(exc), code=1)
    except KeyboardInterrupt:
        fail("interrupted: no figures", code=130)
    if as_json:
        print(json.dumps(result))
    else:
        print_scale(result, Console(width=max(Console().width, 150)))
    if result["errors_total"]:
        failed = [
            f"{c['table_replicas']} replicas: "
            + ", ".join(f"{k} {v}" for k, v in c["errors"].items() if k not in _NOT_COUNTS)
            for c in result["configurations"]
            if c["errors"]["total"]
        ]
        fail(f"the run had {result['errors_total']} errors ({'; '.join(failed)})", code=1)


_NOT_COUNTS = ("total", "died", "owner_redirects_not_errors")


def _count(count: int, noun: str, suffix: str = "s") -> str:
    return f"{count} {noun}{'' if count == 1 else suffix}"


def _workers(c: dict) -> str:
    if not c["bot_workers"]:
        return "no bot worker"
    return (
        f"{_count(c['bot_workers'], 'bot worker')} × {_count(c['worker_processes'], 'process', 'es')}"
        f" × {c['worker_sessions']} sessions"
    )


def _ms(figures: dict) -> str:
    p50, p99 = figures.get("p50"), figures.get("p99")
    return "n/a" if p50 is None else f"{p50:g} / {p99:g}"


def scale_tables(result: dict) -> list[Table]:
    """The rich tables of ``hebei bench scale``: one row a configuration, then the projection."""
    people = result["people_per_table"]
    configurations = Table(
        title=(
            f"hebei bench scale: {result['tables']} tables of {people} scripted"
            f" {'person' if people == 1 else 'people'} (pace {result['pace']:g} s ±"
            f" {result['jitter']:.0%})"
            + (f" and {4 - people} {result['policy']} bots" if people < 4 else "")
            + f"; {result['machine']['cores']} cores"
        ),
        caption=(
            "round trips p50 / p99 in ms: people at their client (action sent → the answer;"
            " a discard's less the engine's hold, and only where the other seats are bots),"
            " bots at the engine; CPU-ms and MiB per live table; the first limit from the"
            " measured costs (see the limits below)"
        ),
    )
    columns = (
        "replicas", "tables live", "people rtt ms", "bots rtt ms", "engine cores",
        "CPU-ms /table·s", "MiB /table", "events /s", "hands /s", "errors", "first limit, tables",
    )  # fmt: skip
    for column in columns:
        configurations.add_column(column, justify="left" if column == "first limit" else "right")
    for c in result["configurations"]:
        first = c["first_limit"]
        errors = c["errors"]["total"]
        configurations.add_row(
            str(c["table_replicas"]),
            str(c["tables_live"]),
            _ms(c["people_rtt_ms"]),
            _ms(c["bots_rtt_ms"]),
            f"{c['engine']['cores']:g}",
            f"{c['engine']['cpu_ms_per_table_second']:g}",
            f"{c['engine']['mib_per_table']:g}",
            f"{c['events_per_second']:g}",
            f"{c['hands_per_second']:g}",
            f"[{'red' if errors else 'green'}]{errors}",
            "none" if first is None else f"{first['tables']:,} ({first['short']})",
        )
    projection = result["projection"]
    projected = Table(
        title=(
            f"{projection['players']:,} players, from the per-table costs of"
            f" {_count(projection['from_replicas'], 'replica')}"
        ),
        caption=(
            "each engine replica at its first limit (event loop at"
            f" {result['assumptions']['utilisation']:.0%} of a core, or memory within"
            f" {result['assumptions']['engine_memory_mib']:g} MiB); a table costs the engine"
            " the same whoever sits at it"
        ),
    )
    for column in (
        "people a table", "tables", "tables/replica", "engine replicas", "engine cores",
        "engine GiB", "bot seats", "bot cores", "events/s", "settlements/s", "PG connections",
    ):  # fmt: skip
        projected.add_column(column, justify="right")
    for s in projection["scenarios"]:
        projected.add_row(
            str(s["people_per_table"]),
            f"{s['tables']:,}",
            f"{s['tables_per_replica']:,} ({s['replica_bound']})",
            str(s["engine_replicas"]),
            f"{s['engine_cores']:g}",
            f"{s['engine_memory_gib']:g}",
            f"{s['bot_seats']:,}",
            f"{s['bot_cores']:g}",
            f"{s['events_per_second']:,.0f}",
            f"{s['settlements_per_second']:g}",
            str(s["pg_connections"]),
        )
    return [configurations, projected]


def print_scale(result: dict, out: Console) -> None:
    """Print ``hebei bench scale``'s figures: the tables, then each configuration's details."""
    configurations, projected = scale_tables(result)
    out.print(configurations)
    for c in result["configurations"]:
        out.print(
            f"[bold]{_count(c['table_replicas'], 'replica')}[/] ({c['servers']} servers, load"
            f" {' '.join(f'{x:g}' for x in c['load_average'])}; {_workers(c)}):"
            f" {c['seconds']:g} s measured, {c['people_decisions']:,} people's decisions,"
            f" {c['hands_played_per_table']:g} hands a table played by its end"
        )
        for r in c["engine"]["replicas"]:
            out.print(
                f"  {r['name']}: {r['tables']} tables, {r['cores']:g} cores (idle"
                f" {r['idle_cores']:g}), {r['cpu_ms_per_table_second']} CPU-ms/table·s; PSS"
                f" {r['pss_before_mib']:g} → {r['pss_mib']:g} MiB ({r['pss_mib_per_table']}"
                f" a table), RSS {r['rss_before_mib']:g} → {r['rss_mib']:g} MiB"
                f" ({r['rss_mib_per_table']} a table)"
            )
        cores = ", ".join(f"{name} {value:g}" for name, value in c["cores"].items())
        out.print(f"  cores: {cores}")
        kinds = ", ".join(
            f"{kind} {_ms(figures)} ({figures['samples']})"
            for kind, figures in c["people_rtt_ms_by_kind"].items()
        )
        out.print(
            f"  people's round trips by kind, ms: {kinds}; a discard's include the"
            f" {c['discard_hold_ms']:g} ms hold; event log commit {_ms(c['event_log_commit_ms'])}"
        )
        for limit in c["limits"]:
            tables = "—" if limit["tables"] is None else f"{limit['tables']:,} tables"
            hit = " [red](hit in the run)[/]" if limit["hit"] else ""
            out.print(f"  limit: {limit['name']}: {tables}{hit}; {limit['detail']}")
        errors = {k: v for k, v in c["errors"].items() if k != "total"}
        colour = "red" if c["errors"]["total"] else "green"
        out.print(
            f"  [{colour}]errors: {c['errors']['total']}[/]"
            + (f" {json.dumps(errors)}" if errors else "")
        )
    out.print(projected)
