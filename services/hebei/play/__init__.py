"""``hebei play``: a person at a table against three bots, in the terminal.

The terminal's own part on top of the shared seat client (:mod:`hebei.seatclient`: the Play
stream, the command language, the reading of an observation). Kept testable without a
terminal: :mod:`~hebei.play.render` turns an ``Observation`` message into rich renderables,
:mod:`~hebei.play.session` runs the person's side and the keyboard loop,
:mod:`~hebei.play.hints` the expert's suggestion (``--hints``), :mod:`~hebei.play.tournament`
the screens of ``hebei tournament join``, and :mod:`~hebei.play.local` starts a local table
engine with a match and three in-process bots.
"""
