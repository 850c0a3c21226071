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
    tournament,
    tournament_join,
    tournament_ops,
    up,
    web,
)

one_line_listings(app)
