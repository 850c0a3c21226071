"""Versioned SQL migrations of the ledger's schema, applied in order at start (hebei.common.db)."""
