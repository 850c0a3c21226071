"""``hebei web serve``: run the web gateway (lobby, live tables, play against bots,
tournaments, operators' view) and print its address.

Options override the ``HEBEI_WEB_*`` variables; addresses and the operator token not given
either way come from the stack ``hebei up`` runs (its discovery file). The work lives in
:mod:`hebei.web`.
"""

from __future__ import annotations

import os

import typer

from hebei.cli import app
from hebei.cli._util import fail

web_app = typer.Typer(help="The web gateway and its pages.", no_args_is_help=True)
app.add_typer(web_app, name="web")


@web_app.command("serve")
def serve_command(
    port: int | None = typer.Option(None, "--port", help="HTTP port (default 8080; 0: any)."),
    host: str | None = typer.Option(None, "--host", help="Address to listen on (127.0.0.1)."),
    table: str | None = typer.Option(None, "--table", help="Table engine address host:port."),
    matchmaking: str | None = typer.Option(
        None, "--matchmaking", help="Matchmaking address host:port."
    ),
    ledger: str | None = typer.Option(None, "--ledger", help="Ledger address host:port."),
    botservice: str | None = typer.Option(
        None, "--botservice", help="Bot service address host:port (hints and reviews)."
    ),
    spectator_delay: float | None = typer.Option(
        None, "--spectator-delay", help="Seconds spectators lag the tables (default 0)."
    ),
) -> None:
    """Serve the web pages until Ctrl-C or SIGTERM (same as ``python -m hebei.web``); prints
    ``web: http://HOST:PORT/``."""
    from hebei.common.config import ConfigError, StartupError
    from hebei.common.logs import configure_logging
    from hebei.web.config import WebConfig
    from hebei.web.server import serve

    overrides = {
        "HEBEI_WEB_PORT": port,
        "HEBEI_WEB_HOST": host,
        "HEBEI_WEB_TABLE_ADDRESS": table,
        "HEBEI_WEB_MATCHMAKING_ADDRESS": matchmaking,
        "HEBEI_WEB_LEDGER_ADDRESS": ledger,
        "HEBEI_WEB_BOTSERVICE_ADDRESS": botservice,
        "HEBEI_WEB_SPECTATOR_DELAY_SECONDS": spectator_delay,
    }
    env = dict(os.environ)
    env.update({name: str(value) for name, value in overrides.items() if value is not None})
    _from_running_stack(env)
    try:
        config = WebConfig.from_env(env)
        configure_logging("web", config.log_level)
        serve(config, lambda line: print(line, flush=True))
    except (ConfigError, StartupError) as exc:
        fail(str(exc), code=2 if isinstance(exc, ConfigError) else 1)
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


def _from_running_stack(env: dict[str, str]) -> None:
    """Fill the addresses and operator token not set from ``hebei up``'s discovery file."""
    wanted = {
        "HEBEI_WEB_TABLE_ADDRESS": "table",
        "HEBEI_WEB_MATCHMAKING_ADDRESS": "matchmaking",
        "HEBEI_WEB_LEDGER_ADDRESS": "ledger",
        "HEBEI_WEB_BOTSERVICE_ADDRESS": "botservice",
    }
    missing = [name for name in wanted if not env.get(name)]
    if not missing and (env.get("HEBEI_OPERATOR_TOKEN") or env.get("HEBEI_WEB_OPERATOR_TOKEN")):
        return
    from hebei.stack.discovery import find_stack

    stack = find_stack()
    if stack is None:
        return
    for name in missing:
        if wanted[name] in stack.addresses:
            env[name] = stack.addresses[wanted[name]]
    if not (env.get("HEBEI_OPERATOR_TOKEN") or env.get("HEBEI_WEB_OPERATOR_TOKEN")):
        env["HEBEI_OPERATOR_TOKEN"] = stack.operator_token
