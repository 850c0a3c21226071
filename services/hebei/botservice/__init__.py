"""The bot service (issue 15): the bot policies over gRPC, stateless.

``advice`` ranks a position (Suggest), ``review`` compares a seat's play with the expert's
(Review), ``rebuild`` and ``tablefeed`` bring back a finished match from the table engine's
public events and its published seed, ``positions`` checks an observation before a policy
reads it, ``servicer`` is the thin gRPC layer and ``service`` the main. Run it with
``python -m hebei.botservice`` or ``hebei botservice serve``.
"""
