"""The pure game of Hebei Mahjong (RULES.md §1-§8, and the classic profile of §9).

Standard library only: no I/O, no network, no database. Everything else in
hebei stands on this package.
"""
