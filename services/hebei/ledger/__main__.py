"""``python -m hebei.ledger``: run the ledger service (see hebei.ledger.service)."""

from hebei.ledger.service import main

if __name__ == "__main__":
    main()
