"""A person's seat client, shared by the terminal (:mod:`hebei.play`) and the web gateway
(:mod:`hebei.web`): both sit on it and add only their own screen.

:mod:`~hebei.seatclient.stream` holds a seat's Play stream (join, send, rejoin on UNAVAILABLE),
:mod:`~hebei.seatclient.commands` the command language (a typed key to an action, the prompt
naming the keys), :mod:`~hebei.seatclient.observations` the reading of an observation (seat and
meld names, what changed between two), :mod:`~hebei.seatclient.tiles` the tiles' labels and the
hand's order and keys, and :mod:`~hebei.seatclient.suggestions` the expert's suggestion's
words. Nothing here renders or reads a keyboard.
"""
