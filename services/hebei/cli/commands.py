"""Imports every sub-command module so that each registers itself on ``app``; then gives
every command its one-line listing (:func:`hebei.cli.one_line_listings`)."""

from hebei.cli import (  # noqa: F401
    app,
    bench,
    bots,
    botservice,
    demo,
    ledger,
    matchmaking,
    one_line_listings,
    play,
    replay,
    review,
    score,
    simulate,
    stack,
    table,
    up,
    web,
)

# `hebei tournament --help` lists its commands in the order they register: these modules in
# this order (seating, create ... withdraw, penalty ... dissolve, export ... ratings, join).
# isort: off
from hebei.cli import tournament  # noqa: F401
from hebei.cli import tournament_setup, tournament_lifecycle, tournament_corrections  # noqa: F401
from hebei.cli import tournament_results, tournament_next_round, tournament_records  # noqa: F401
from hebei.cli import tournament_join  # noqa: F401
# isort: on

one_line_listings(app)
