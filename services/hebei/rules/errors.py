"""Errors raised by the rules engine.

Every error carries a human-readable reason. Services map them to gRPC codes
in one place (``hebei.common.errors``); the rules never know about gRPC.
"""


class RulesError(Exception):
    """Base class of every error the rules engine raises."""


class NotationError(RulesError, ValueError):
    """A tile string or tile list is malformed (bad letter, 0, >4 copies, wrong count)."""


class IllegalActionError(RulesError):
    """An action that is not legal for this seat in this state; the state is unchanged."""


class ReplayError(RulesError):
    """An event log that does not replay: tampered, inconsistent or truncated."""
