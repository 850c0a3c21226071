"""The bot fleet as its clients see it, at the level of its contract.

Whoever hands seats to the Celery bot fleet (matchmaking, ``hebei bots send``, the stack and
its benches) needs only what is here: the seat ticket (:mod:`hebei.fleet.ticket`), the
``SeatTask`` message it travels as (:mod:`hebei.fleet.seat_task`, protos/hebei/v1/bot.proto),
the client that queues it by task name (:mod:`hebei.fleet.client`), the settings naming the
broker and the queues (:mod:`hebei.fleet.settings`), the names and levels of the policies the
workers play (:mod:`hebei.fleet.catalogue`) and the registry of live workers
(:mod:`hebei.fleet.registry`).

The worker side, :mod:`hebei.bots`, builds on this package; this package imports nothing of
it (an import-linter contract), so a sender never loads the policies or the worker's app.
"""
