"""``python -m hebei.table``: run the table engine service."""

from hebei.table.service import run

if __name__ == "__main__":
    run()
