"""``python -m hebei.web``: run the web gateway (``HEBEI_WEB_*`` variables)."""

from hebei.web.server import run

if __name__ == "__main__":
    run()
