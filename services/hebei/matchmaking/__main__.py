"""``python -m hebei.matchmaking``: run the matchmaking service."""

from hebei.matchmaking.service import run

if __name__ == "__main__":
    run()
