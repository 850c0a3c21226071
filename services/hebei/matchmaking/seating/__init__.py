"""Tournament seating: tables of four for every round, each table listed East, South, West, North.

Pure: standard library only, no I/O. Every function is deterministic in its inputs; the
``deadline`` (CPU seconds) only cuts a search short (and says so in the round's quality).

Modes
=====
``random`` and ``schedule``
    The event is planned for the fewest repeat meetings (a *meeting* is two players at one
    table in a round) and the round asked for is returned. Both use the same planner;
    ``schedule`` publishes the plan up front (:func:`plan_event`), ``random`` is drawn under
    another seed label. While the history is exactly the plan's first rounds (same players,
    same seats), every call returns the next round of that one plan; otherwise (players joined
    or left, an operator swapped seats) the remaining rounds are planned again from the history
    and the first of them is returned. Either way a round is a function of the history, so an
    event seated round by round is the plan published up front. (Events of more than 16384
    player-rounds without a design are planned from the history only, looking ahead a few
    rounds.)
``swiss``
    Players close in the caller's standings sit together, avoiding repeat meetings.
``duplicate``
    Bot evaluation: players are grouped in fours as in ``random``; each group plays the round's
    wall under the four seat rotations, so a round has four tables per group, consecutive:
    (a, b, c, d), (b, c, d, a), (c, d, a, b), (d, a, b, c).

Pair planning (random, schedule, duplicate)
===========================================
1. Designs. With 2^k players and nothing played yet, the rounds come from geometry over GF(2):
   players are the vectors of GF(2)^k, a round is a 2-dimensional subspace V and its tables are
   the cosets x + V; two players meet in that round iff their sum lies in V. Rounds whose
   subspaces share only 0 (a *partial spread*) never repeat a pair.

   * k even (16, 64, 256, 1024, 4096 players): GF(2)^k = GF(4)^(k/2) and its GF(4)-lines form a
     spread: (P-1)/3 rounds in which every pair meets exactly once (16 players: the affine
     plane AG(2,4)).
   * 32 players: the 16 "letters" GF(2)^4 carry two disjoint spreads of PG(3,2), 10 classes in
     which every letter pair shares a block twice. A player is a letter with a sign; each letter
     block splits into two tables by a sign vector, and a linear system over GF(2) chooses the
     signs so that the two blocks of a letter pair give it opposite relative signs. Result: 10
     rounds in which every pair meets at most once (all but the 16 pairs of one letter), the
     social golfer instance 8-4-10, the most rounds 32 players can play without a repeat.
   * other odd k (8, 128, 512, 2048 players): GF(2)^k = W + U with W = GF(2)^3; over each line
     of the GF(4)-spread of U the 8 graphs of the maps v -> g * i(v) into W = GF(8) are lines
     covering all vectors outside W, plus one line of W: (2^k - 8)/3 + 1 rounds, the largest
     partial spread there is (41 rounds for 128 players).

   A design is relabelled by a permutation drawn from the seed. Longer events repeat it in
   cycles, each cycle in a new order that never starts with the round that ended the last one
   (for 32 players a *twin round* after each cycle seats two never-met pairs at each table).
2. Otherwise tables are built greedily round by round (each seat goes to the candidate adding
   the least cost), then simulated annealing swaps two players inside a round (designs: only
   in the rounds after the part that is already optimal), the first player drawn again a few
   times until it is in a repeat. A pair's meeting costs 1 for a repeat up to the lower bound
   on the most meetings (:func:`pair_bounds`), 2 for the one above it and far more beyond; a
   pair in two consecutive rounds costs more than any of that. The temperature falls
   geometrically over an iteration budget (4000 moves a table searched, at most 150,000), so
   the plan is a function of its inputs; plans are memoised per event.
3. Lower bounds (:func:`pair_bounds`): a player meets 3R opponents among P-1, so some pair meets
   ceil(3R/(P-1)) times, and at least 3PR/2 - P(P-1)/2 meetings repeat. The plans reach both
   bounds with no pair in two consecutive rounds for 16, 64 and 256 players and any number of
   rounds, for 32 players up to 12 rounds and for 128 players up to 41 (no repeat at all): see
   tests/unit/matchmaking/test_seating_benchmark.py.

Seat winds
==========
Every player's count of each wind stays within one of its other counts (max - min <= 1); so
after 4k rounds each wind is taken exactly k times. Write A(p) for the winds p has taken least:
p must take one of them. A state is *regular* when every A(p) has the same size s and every wind
lies in exactly s * P/4 of them (so it is at the start of the event and stays so while the player
set is fixed).

* A planned block of four rounds is a bipartite multigraph players x tables, 4-regular (or of
  degree at most 4 for the last, shorter block); König's theorem gives a proper 4-edge colouring,
  found with alternating paths: the colour of an edge is the player's wind at that table.
* Online (swiss, re-planned rounds) in a regular state a table is allowed iff its players have a
  system of distinct representatives in their A(p). Any such round leaves a regular state: each
  wind is taken by exactly P/4 players who all had it available, so every wind is now in
  (s-1) * P/4 sets. A regular state always has a valid round (split each wind into P/4 copies:
  the graph players x copies is s-regular, so it has a perfect matching), so seating never
  paints itself into a corner.
* After players join or leave mid-block the state is not regular. Then the round follows a
  *lane plan*: each player's winds in the next four rounds, A(p) first, then the other winds,
  with P/4 players on every wind in every round. A lane plan rotated by one round is a lane
  plan for the next state, so while the set stays fixed everyone keeps within one for good; the
  round's winds are the plan's first and every table takes one player of each. The plan is
  rebuilt from the history at each call: the players of the last regular state get lanes by
  balanced matchings (a regular state splits into them round by round), a followed plan is
  rotated, players who stay keep their lane, arrivals take the lanes of those who left (or come
  in fours on the cyclic lanes). So late registrations and fillers replacing withdrawals always
  keep every player within one. When the set shrinks without arrivals, balance can become
  impossible (8 players after three rounds, four leave and two of the other four both still
  lack East: their one table has one East); then a max flow seats as many players as possible
  on their least winds, the others one above (spread 2), and later rounds repair them.

Swiss
=====
Players are ranked by points (ties in a seeded random order). Tables are formed top down: the
best remaining player with the three best-ranked players that keep the table and the rest of the
round wind-feasible. Simulated annealing then swaps players between tables (mostly tables near
in the ranking; 1000 moves a table, at most 20,000), then passes of best swaps finish,
minimising each table's spread of ranks plus, per pair: little for a meeting that the event's
size forces by this round anyway (:func:`pair_bounds`), 12 places of the ranking for a repeat
beyond that (growing with the meetings), far more for a pair that met in the round before or a
second filler at a table (fillers: ids starting with ``filler-`` unless the caller names them).
When the wind plan leaves no seating without a pair of the round before, the round is searched
again on each player's least winds (everyone still within one). :func:`greedy_swiss` is the
plain baseline (top four together, next four, ...). Every fourth round each player must take
the one wind it has not had, so those rounds' tables are bound by winds and span more places.

Determinism and time
====================
Every random choice comes from ``random.Random`` seeded with the seed, the mode label and the
round number; searches are bounded by iteration budgets. ``deadline`` (seconds, default 2.0) is
a safety cut-off only, counted in the seating thread's CPU time (a loaded machine slows a round
but does not change it): when it passes, the best seating found so far is used and the round's
quality says ``deadline_hit``.

Modules
=======
``model`` the modes, winds, limits and results; ``checks`` the input checks; ``quality`` a
seating's quality and the lower bounds; ``clock`` the deadline and the seeded random sources;
``meetings`` who met whom; ``designs`` the GF(2) designs; ``annealing`` greedy tables and the
swap search; ``winds`` seat winds and their allocation; ``lanes`` the wind rule of a round;
``planning`` the planned modes; ``swiss`` the Swiss search; ``entry_points`` the functions
below.
"""

from hebei.matchmaking.seating.annealing import anneal_budget
from hebei.matchmaking.seating.entry_points import (
    event_quality,
    plan_event,
    play_event,
    seat_round,
    simulated_scores,
)
from hebei.matchmaking.seating.model import (
    FILLER_PREFIX,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    MODES,
    WINDS,
    Quality,
    SeatedRound,
    Table,
)
from hebei.matchmaking.seating.quality import pair_bounds, round_quality
from hebei.matchmaking.seating.swiss import greedy_swiss

__all__ = [
    "FILLER_PREFIX",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "MIN_PLAYERS",
    "MODES",
    "WINDS",
    "Quality",
    "SeatedRound",
    "Table",
    "anneal_budget",
    "event_quality",
    "greedy_swiss",
    "pair_bounds",
    "plan_event",
    "play_event",
    "round_quality",
    "seat_round",
    "simulated_scores",
]
