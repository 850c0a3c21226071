"""The table engine: many concurrent tables, each running a ``hebei.rules`` match.

Layers, inside out: :mod:`~hebei.table.timecontrol` (per-seat deadlines and time banks),
:mod:`~hebei.table.scheduler` (one timer thread for all tables), :mod:`~hebei.table.store`
(the Postgres event log, written in batches, and the outbox), :mod:`~hebei.table.outbox`
(settlements to the ledger and results to matchmaking, retried until acknowledged),
:mod:`~hebei.table.sessions` (per-seat and spectator queues), :mod:`~hebei.table.table`
(one match at one table; its parts: :mod:`~hebei.table.spec`, :mod:`~hebei.table.seat`,
:mod:`~hebei.table.eventlog`, :mod:`~hebei.table.streams`, :mod:`~hebei.table.booking`,
:mod:`~hebei.table.seatactions`, :mod:`~hebei.table.decisions`, :mod:`~hebei.table.pauses`,
:mod:`~hebei.table.observations`, :mod:`~hebei.table.recovery`), :mod:`~hebei.table.host` (all
tables of the process, recovery) and the thin gRPC :mod:`~hebei.table.servicer`.
``python -m hebei.table`` runs the service.
"""
