"""Errors raised by the rules engine.

Every error carries a human-readable reason. Services map them to gRPC codes
in one place (``hebei.common.errors``); the rules never know about gRPC.
"""


class RulesError(Exception):
    """Base class of every error the rules engine raises.

    ``status`` names the gRPC status a service answers with when one reaches a client (a
    plain name: the rules import no gRPC; ``hebei.common.errors`` reads it)."""

    status = "INTERNAL"


class NotationError(RulesError, ValueError):
    """A tile string or tile list is malformed (bad letter, 0, >4 copies, wrong count)."""

    status = "INVALID_ARGUMENT"


class IllegalActionError(RulesError):
    """An action that is not legal for this seat in this state; the state is unchanged."""

    status = "FAILED_PRECONDITION"


class ReplayError(RulesError):
    """An event log that does not replay: tampered, inconsistent or truncated."""

    status = "INVALID_ARGUMENT"
