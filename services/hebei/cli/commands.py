"""Imports every sub-command module so that each registers itself on ``app``."""

from hebei.cli import (  # noqa: F401
    bench,
    bots,
    botservice,
    demo,
    ledger,
    matchmaking,
    play,
    replay,
    review,
    score,
    simulate,
    stack,
    table,
    tournament,
    tournament_ops,
    up,
    web,
)
