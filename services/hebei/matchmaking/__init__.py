"""The matchmaking service: tournaments (registration, seating, rounds, standings, penalties,
ratings) and quick play.

The seating (:mod:`hebei.matchmaking.seating`) and the ratings
(:mod:`hebei.matchmaking.ratings`) are pure modules, tested alone; the rest drives the table
engine, the ledger and the bot fleet through their contracts.
"""
