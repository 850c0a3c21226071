"""The web gateway and its pages: watch tables live, play against bots in the browser, follow
a tournament, and the operators' view.

:mod:`~hebei.web.app` is the ASGI app (routes, SSE, bounds), :mod:`~hebei.web.hub` the feeds and
seats it holds, :mod:`~hebei.web.tables` and :mod:`~hebei.web.tournaments` the gRPC streams
behind them, :mod:`~hebei.web.views` the JSON the pages read, :mod:`~hebei.web.server` how it
is served (``python -m hebei.web``, ``hebei web serve``); the pages are in ``static/``. It
speaks to the services only through the contracts in ``protos/hebei/v1``.
"""
