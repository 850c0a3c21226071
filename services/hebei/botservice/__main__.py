"""``python -m hebei.botservice``: run the bot service (see hebei.botservice.service)."""

from hebei.botservice.service import main

if __name__ == "__main__":
    main()
