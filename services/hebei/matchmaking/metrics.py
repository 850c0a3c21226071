"""Every Prometheus metric of the matchmaking service, in one place (no ids as labels)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

__all__ = [
    "BOT_REQUEUES",
    "DIRECTOR_TICK_SECONDS",
    "LAST_MATCH_FINISHED",
    "LEASES_LOST",
    "MATCHES_DISSOLVED",
    "MATCHES_ENDED",
    "MATCHES_LIVE",
    "MATCH_RESULTS",
    "MATCH_SECONDS",
    "OPERATOR_ACTIONS",
    "QUICK_PLAY_LEFT",
    "QUICK_PLAY_QUEUE",
    "QUICK_PLAY_REFUSED",
    "QUICK_PLAY_WAIT_SECONDS",
    "REPLACEMENTS",
    "ROUNDS_FINISHED",
    "ROUNDS_SEATED",
    "SEATING_MAX_PAIR_MEETINGS",
    "SEATING_REPEAT_PAIRS",
    "SEATING_SECONDS",
    "SEATING_WIND_SPREAD",
    "STANDINGS_MISMATCHES",
    "TAKEOVERS",
    "TOURNAMENTS",
    "TOURNAMENTS_DRIVEN",
    "WATCH_STREAMS",
]

TOURNAMENTS = Gauge(
    "hebei_matchmaking_tournaments",
    "Tournaments by status, as the round director last saw them.",
    ["status"],
)
for _status in ("registration", "running", "paused", "finished", "cancelled"):
    TOURNAMENTS.labels(_status)

ROUNDS_SEATED = Counter(
    "hebei_matchmaking_rounds_seated", "Tournament rounds seated, by seating mode.", ["mode"]
)
ROUNDS_FINISHED = Counter("hebei_matchmaking_rounds_finished", "Tournament rounds finished.")
for _mode in ("swiss", "random", "schedule", "duplicate"):
    ROUNDS_SEATED.labels(_mode)

SEATING_SECONDS = Histogram(
    "hebei_matchmaking_seating_seconds",
    "Time to seat one round, by seating mode.",
    ["mode"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0),
)
SEATING_REPEAT_PAIRS = Gauge(
    "hebei_matchmaking_seating_repeat_pairs",
    "Repeat meetings in the last round seated (pairs that had met before), by seating mode.",
    ["mode"],
)
SEATING_MAX_PAIR_MEETINGS = Gauge(
    "hebei_matchmaking_seating_max_pair_meetings",
    "The most meetings of one pair over the event, as of the last round seated, by mode.",
    ["mode"],
)
SEATING_WIND_SPREAD = Gauge(
    "hebei_matchmaking_seating_wind_spread",
    "The largest spread of one player's seat-wind counts, as of the last round seated.",
    ["mode"],
)

MATCHES_LIVE = Gauge(
    "hebei_matchmaking_matches_live",
    "Matches matchmaking follows: pending (not yet opened on the engine) or opened.",
    ["state"],
)
for _state in ("pending", "opened"):
    MATCHES_LIVE.labels(_state)

MATCHES_ENDED = Counter(
    "hebei_matchmaking_matches_ended",
    "Matches that ended, by how: finished, dissolved (operator, removed player) or stalled.",
    ["how"],
)
for _how in ("finished", "dissolved", "stalled"):
    MATCHES_ENDED.labels(_how)

MATCHES_DISSOLVED = Counter(
    "hebei_matchmaking_matches_dissolved_total",
    "Matches dissolved, by reason: stalled (no event for the stall time), operator"
    " (DissolveTable), cancelled (the tournament was), quick_play_left (its people left before"
    " it started) or other (the engine's: a pause nobody came back to, a technical failure).",
    ["reason"],
)
DISSOLVED_REASONS = ("stalled", "operator", "cancelled", "quick_play_left", "other")
for _reason in DISSOLVED_REASONS:
    MATCHES_DISSOLVED.labels(_reason)


def dissolved_reason(reason: str) -> str:
    """The ``reason`` label of :data:`MATCHES_DISSOLVED` for a match's recorded reason."""
    if reason.startswith("stalled"):
        return "stalled"
    if reason.startswith("dissolved by the operator"):
        return "operator"
    if reason == "cancelled":
        return "cancelled"
    if reason.startswith("quick play: the player left"):
        return "quick_play_left"
    return "other"


MATCH_SECONDS = Histogram(
    "hebei_matchmaking_match_seconds",
    "Time from opening a match on the engine to its result, for matches that finished.",
    buckets=(5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200),
)
LAST_MATCH_FINISHED = Gauge(
    "hebei_matchmaking_last_match_finished_timestamp_seconds",
    "When the last match finished (Unix time; the process start until one has).",
)
LAST_MATCH_FINISHED.set_to_current_time()

MATCH_RESULTS = Counter(
    "hebei_matchmaking_match_results",
    "ReportMatchResult calls and polled results, by outcome: recorded, duplicate, unknown.",
    ["outcome"],
)
for _outcome in ("recorded", "duplicate", "unknown"):
    MATCH_RESULTS.labels(_outcome)

REPLACEMENTS = Counter(
    "hebei_matchmaking_replacements",
    "Seats handed to a filler bot, by cause: absent (after the ready check) or removed.",
    ["cause"],
)
for _cause in ("absent", "removed"):
    REPLACEMENTS.labels(_cause)

BOT_REQUEUES = Counter(
    "hebei_matchmaking_bot_requeues",
    "Bot seats queued again because no session held them (a dead worker, a lost task).",
)

STANDINGS_MISMATCHES = Counter(
    "hebei_matchmaking_standings_mismatches",
    "Rounds closed whose ledger standings differed from the reported match results.",
)

OPERATOR_ACTIONS = Counter(
    "hebei_matchmaking_operator_actions", "Operator actions recorded, by action.", ["action"]
)
for _action in (
    "start", "pause", "resume", "cancel", "dissolve", "withdraw", "remove", "no_show", "swap",
    "penalty", "cancel_penalty",
):  # fmt: skip
    OPERATOR_ACTIONS.labels(_action)

DIRECTOR_TICK_SECONDS = Histogram(
    "hebei_matchmaking_director_tick_seconds",
    "Time of one pass of the round director over every live tournament and match.",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)

TOURNAMENTS_DRIVEN = Gauge(
    "hebei_matchmaking_tournaments_driven",
    "Tournaments this replica drives now (it holds their leases; quick play not counted).",
)
TAKEOVERS = Counter(
    "hebei_matchmaking_takeovers",
    "Tournaments this replica began to drive in the middle of their rounds (another replica,"
    " or an earlier run, drove them before: it died, stopped or handed them over).",
)
LEASES_LOST = Counter(
    "hebei_matchmaking_leases_lost",
    "Tournament and quick-play leases this replica lost (its ownership session failed or was"
    " ended): it stopped driving them at once.",
)

QUICK_PLAY_QUEUE = Gauge(
    "hebei_matchmaking_quick_play_queue", "People waiting in the quick-play queue."
)
QUICK_PLAY_WAIT_SECONDS = Histogram(
    "hebei_matchmaking_quick_play_wait_seconds",
    "Time from a quick-play request to its seating.",
    buckets=(0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0),
)
QUICK_PLAY_REFUSED = Counter(
    "hebei_matchmaking_quick_play_refused",
    "Quick-play requests refused: quick play already had its most live tables.",
)
QUICK_PLAY_LEFT = Counter(
    "hebei_matchmaking_quick_play_left",
    "Quick-play matches dissolved before they started: their people left without joining.",
)

WATCH_STREAMS = Gauge(
    "hebei_matchmaking_watch_streams", "Open WatchTournament and QuickPlay streams.", ["rpc"]
)
for _rpc in ("watch", "quick_play"):
    WATCH_STREAMS.labels(_rpc)
