"""``hebei play``: a person at a table against three bots, in the terminal.

Kept testable without a terminal: :mod:`~hebei.play.render` turns an ``Observation`` message
into rich renderables, :mod:`~hebei.play.keys` maps a typed line to a command,
:mod:`~hebei.play.session` runs the Play stream and the input loop, and
:mod:`~hebei.play.local` starts a local table engine with a match and three in-process bots.
"""
