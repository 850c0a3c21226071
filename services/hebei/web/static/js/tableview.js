// A table in a page: a seat played (own hand, options, keys, auto-play) or a table watched
// (public information only), both from one feed of the same table view. The table page
// (table.js) and a person's tournament page (tournament.js) show it: mountTable() builds the
// markup, startTable() follows a feed; the seat's routes are under `seatBase`
// (/api/seats/KEY, or /api/tournaments/ID/me/seat by the registration's cookie).
import { $, api, el, fill, params, signed, tile, tileName, tileWords, WINDS } from "./common.js";
import { Feed } from "./feed.js";

const query = params();
let seatBase = null; // where the seat's commands, auto-play and hints go; null: watching
const POSITIONS = ["bottom", "right", "top", "left"]; // play order runs counter-clockwise
const WIN_KINDS = { self_draw: "self-draw 自摸", discard: "discard 点炮", rob_kong: "robbing a kong 抢杠胡" };
const MELDS = { pong: "碰", exposed_kong: "杠", added_kong: "加杠", concealed_kong: "暗杠", chow: "吃" };
const MELD_WORDS = { pong: "pong", exposed_kong: "kong", added_kong: "added kong", concealed_kong: "concealed kong", chow: "chow" };
// A discard is marked as it arrives for this long (the newest of each seat), so a person can
// follow the bots' play; the table's last discard keeps its outline until the next one.
const ARRIVAL_MS = 1600;
// A decision's buttons and tiles come on no sooner than this after the person's previous
// answer: a second click on the same spot (a double click, or a click 450 ms later when the
// turn came back in 300 ms) answers nothing. Keys are deliberate and are not held back.
const SETTLE_MS = 700;
const TITLE = document.title;

const page = {
  feed: null,
  state: null,
  pendingKong: false,
  answered: null, // the decision id the person answered: its controls stay off until a new one
  answeredAt: 0,
  armedAt: 0, // when the open decision's controls may be used (see SETTLE_MS)
  controls: "", // what the hand and the buttons were built from (rebuilt only when it changes)
  log: [],
  hint: null, // the expert's hint for the open decision (GET /api/seats/KEY/hint)
  settlement: null, // the last hand's settlement, shown until the person closes it
  closed: 0, // the hand number of the settlement the person closed
  arrivals: {}, // seat -> {count, at}: each seat's discards and when its newest arrived
  lastDiscard: null, // {seat, index}: the table's newest discard
  store: null, // sessionStorage key of this table's log and settlement (survive a reload)
  playedBy: {}, // seat -> "filler for Lin": a bot in a person's seat (from matchmaking)
};
// Measurements for the tests and the README: engine event time -> DOM updated (ms).
window.hebeiLatency = [];
window.hebeiPage = page;

function viewerSeat(state) {
  if (state.viewer !== null && state.viewer !== undefined) return state.viewer;
  const from = Number(query.get("from"));
  return Number.isInteger(from) && from >= 0 && from < 4 ? from : 0;
}

/** Who plays a seat now: a bot in a person's seat is shown as the bot ("filler for Lin"). */
function playedBy(view) {
  return view.played_by || page.playedBy[view.seat] || "";
}

/** A seat as sentences name it: "you", or its player with the seat wind ("Lin 南"), so two
 * people of one name at a table are told apart. */
function seatName(state, seat) {
  if (seat === state.viewer) return "you";
  const view = state.seats[seat];
  if (!view) return `Seat ${seat}`;
  const wind = view.wind ? ` ${WINDS[view.wind] || ""}` : ` (seat ${seat})`;
  return `${playedBy(view) || view.name}${wind}`;
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** The decision open for the person: options to answer or tiles to discard. */
function deciding(state) {
  return state.mode === "seat" && !state.finished && !state.auto && Boolean(state.decision_id)
    && (state.options.length > 0 || state.hand.some((t) => t.discard));
}

/** Whether the open decision's controls are off: answered already, or (for clicks) just
 * arrived after the person's previous answer. */
function controlsOff(state, key = false) {
  return !deciding(state) || page.answered === state.decision_id || (!key && Date.now() < page.armedAt);
}

function noteArrivals(state) {
  const now = Date.now();
  for (const view of state.seats) {
    const known = page.arrivals[view.seat];
    const count = view.discards.length;
    if (known && count > known.count) {
      page.arrivals[view.seat] = { count, at: now };
      page.lastDiscard = { seat: view.seat, index: count - 1 };
    } else if (!known || count < known.count) {
      page.arrivals[view.seat] = { count, at: 0 }; // the first state, or a new hand: no arrival
    }
  }
  if (state.offer) {
    const view = state.seats[state.offer.from];
    if (view && view.discards.length) page.lastDiscard = { seat: view.seat, index: view.discards.length - 1 };
  }
  const last = page.lastDiscard;
  if (last && (!state.seats[last.seat] || state.seats[last.seat].discards.length <= last.index)) page.lastDiscard = null;
}

function renderSeat(state, view, position) {
  const node = document.querySelector(`.seat[data-pos="${position}"]`);
  node.dataset.seat = String(view.seat);
  const turn = ["turn", "claim", "rob_kong"].includes(state.phase) && state.current_seat === view.seat;
  node.classList.toggle("turn", turn && state.phase === "turn");
  const by = view.seat === state.viewer ? "" : playedBy(view);
  const flags = el("span", { class: "flags" },
    view.kind === "bot" || by ? el("span", { class: "badge", dataset: { flag: "bot" } }, "bot") : null,
    view.auto ? el("span", { class: "badge warn", dataset: { flag: "auto" } }, "托管 auto") : null,
    view.connected ? null : el("span", { class: "badge bad" }, "offline"));
  const who = el("div", { class: "who" },
    view.wind ? el("span", { class: "wind", title: "seat wind" }, WINDS[view.wind] || "") : null,
    state.dealer === view.seat && state.hand_no ? el("span", { class: "dealer", title: "dealer" }, "庄") : null,
    el("span", { class: "name", dataset: { playedBy: by } },
      by || (view.seat === state.viewer && view.name !== "You" ? `${view.name} (you)` : view.name)),
    flags,
    el("span", { class: "score", title: "match score" }, signed(view.score)));
  const hidden = view.seat === state.viewer ? [] : Array.from({ length: view.concealed }, () => tile(null, "mini"));
  const concealed = el("div", { class: "concealed", title: `${view.concealed} tiles in hand` },
    el("span", { class: "backs" }, hidden), el("span", { class: "count" }, ` ${view.concealed} in hand`));
  const melds = el("div", { class: "melds" }, view.melds.map((meld) =>
    el("span", { class: "meld", dataset: { kind: meld.kind }, title: MELD_WORDS[meld.kind] || meld.kind },
      el("span", { class: "label" }, `${MELDS[meld.kind] || meld.name} `),
      meld.tiles ? meld.tiles.map((name) => tile(name, "small")) // a chow: its run
        : (meld.kind === "pong" ? [1, 2, 3] : [1, 2, 3, 4]).map((i) =>
          tile(meld.kind === "concealed_kong" && (i === 1 || i === 4) ? null : meld.tile, "small")))));
  const arrival = page.arrivals[view.seat];
  const since = arrival && arrival.at ? Date.now() - arrival.at : Infinity;
  const discards = el("div", { class: "discards" }, view.discards.map((name, i) => {
    const node = tile(name, "small");
    const last = page.lastDiscard && page.lastDiscard.seat === view.seat && page.lastDiscard.index === i;
    if (last) node.classList.add("last");
    if (i === view.discards.length - 1 && since < ARRIVAL_MS) {
      node.classList.add("fresh");
      // re-rendered within the animation: it goes on where it was rather than starting again
      node.style.animationDelay = `-${since}ms`;
    }
    return node;
  }));
  fill(node, who, concealed, melds, discards);
}

function renderCenter(state) {
  const parts = [];
  if (state.hand_no) parts.push(`Hand ${state.hand_no}${state.hands ? ` of ${state.hands}` : ""}`);
  parts.push(`wall ${state.wall}`);
  if (state.prevailing_wind) parts.push(`prevailing ${WINDS[state.prevailing_wind]}`);
  if (state.hand_no) parts.push(`dealer ${seatName(state, state.dealer)}`);
  let line = parts.join(" · ");
  if (state.status === "waiting" || state.phase === "waiting") line = "Waiting for the seats to join…";
  if (state.paused) line += " · paused";
  if (state.finished) line = state.status === "dissolved" ? "The match was dissolved" : "Match over";
  fill($("#info"), line);
  const offer = $("#offer");
  if (state.offer && ["claim", "rob_kong"].includes(state.phase)) {
    const verb = state.phase === "rob_kong" ? "adds a kong with" : "discarded";
    fill(offer, `${capital(seatName(state, state.offer.from))} ${verb} `, tile(state.offer.tile, "small"),
      ` ${tileName(state.offer.tile)}`);
  } else if (state.phase === "turn" && !state.finished) {
    fill(offer, state.current_seat === state.viewer ? "Your turn" : `${capital(seatName(state, state.current_seat))}: turn`);
  } else {
    fill(offer);
  }
}

/** What the person may do now, in words (the buttons and the keys say the rest). */
function promptText(state) {
  if (state.auto) return "托管 auto-play: the engine plays your seat. Press “I'm back” (or t) to play again.";
  if (!deciding(state)) return "";
  const words = state.options.filter((o) => o.kind !== "pass").map((o) => tileWords(o.label.replace(/^\S+ /, "")).toLowerCase());
  const discard = state.hand.some((t) => t.discard);
  if (state.offer && ["claim", "rob_kong"].includes(state.phase)) {
    const verb = state.phase === "rob_kong" ? "adds a kong with" : "discarded";
    const choices = [...words, "pass"].join(", ").replace(/, ([^,]*)$/, " or $1");
    return `${capital(seatName(state, state.offer.from))} ${verb} ${tileName(state.offer.tile)}: ${choices}?`;
  }
  const also = words.length ? `, or ${words.join(", ")}` : "";
  return discard ? `Your turn: choose a tile to discard${also}.` : `Your turn: ${words.join(", ")}.`;
}

function handButtons(state, off) {
  return state.hand.map((item) => {
    const face = tile(item.tile);
    if (item.discard) face.classList.add("can");
    const label = `${item.discard ? "discard " : ""}${tileName(item.tile)}${item.drawn ? " (drawn)" : ""}`;
    return el("button", {
      type: "button", class: item.drawn ? "slot drawn" : "slot", "aria-label": label,
      disabled: !item.discard || off, "aria-disabled": !item.discard || off ? "true" : null,
      dataset: { focus: `tile-${item.tile}-${item.drawn ? "d" : ""}` },
      onclick: item.discard ? () => send(item.tile) : null,
    }, face, el("kbd", {}, item.key));
  });
}

function renderHand(state) {
  const area = $("#hand-area");
  area.classList.toggle("hidden", state.mode !== "seat");
  if (state.mode !== "seat") return;
  const off = controlsOff(state);
  area.classList.toggle("answered", deciding(state) && off);
  // Rebuilt only when something on them changed: a focused button keeps its focus (Enter and
  // Space on it do what it says) across the table's other updates.
  const signature = JSON.stringify([state.hand, state.options, off]);
  if (signature !== page.controls) {
    page.controls = signature;
    // a tile a mouse clicked is not focused again: Enter (pass) stays the page's
    const active = document.activeElement;
    const focused = active && active.dataset && active.dataset.focus
      && (active.matches(":focus-visible") || active.closest("#option-buttons")) ? active.dataset.focus : null;
    fill($("#hand"), handButtons(state, off));
    fill($("#option-buttons"), state.options.map((option) =>
      el("button", {
        type: "button", class: option.kind === "pass" ? "" : "primary", disabled: off,
        dataset: { command: option.command, kind: option.kind, focus: `option-${option.command}` },
        onclick: () => send(option.command),
      }, tileWords(option.label), el("kbd", {}, option.key))));
    if (focused) {
      const again = document.querySelector(`#hand-area [data-focus="${focused}"]`);
      if (again) again.focus();
    }
  }
  const auto = $("#auto");
  auto.textContent = `托管 Auto-play: ${state.auto ? "on" : "off"}`;
  auto.dataset.on = state.auto ? "1" : "0";
  auto.disabled = state.finished || state.phase === "waiting";
  $("#back").classList.toggle("hidden", !state.auto || state.finished);
  fill($("#prompt"), promptText(state));
}

function shownSettlement(state) {
  if (state.settlement && ["hand_end", "match_end"].includes(state.phase)) {
    if (!page.settlement || page.settlement.hand_no !== state.settlement.hand_no) {
      page.settlement = state.settlement;
      save();
    }
  }
  if (state.finished && page.settlement) return page.settlement;
  return page.settlement && page.closed !== page.settlement.hand_no ? page.settlement : null;
}

/** A win's payment, in words: who pays what, and where the figures come from. */
function payment(state, win) {
  const payers = (win.deltas || []).map((delta, seat) => ({ seat, delta })).filter((p) => p.delta < 0);
  const paid = payers.length
    ? ` Paid: ${payers.map((p) => `${seatName(state, p.seat)} ${-p.delta}`).join(", ")}.` : "";
  if (win.points) {
    return `${win.points} points: the pattern's points, doubled by each doubling below; every other seat pays them, the dealer (or everyone, to a winning dealer) twice.${paid}`;
  }
  const who = win.kind === "self_draw"
    ? "A self-draw: every other seat pays the base payment (the dealer more when another seat wins)."
    : "Won on a discard: the discarder alone pays.";
  const bonus = win.bonus
    ? `bonus ${win.bonus} on top (the bonus items below add up to it)` : "bonus 0 (no bonus item applied)";
  return `${who} Base payment ${win.base} (by how the hand was won and who is dealer) + ${bonus}.${paid}`;
}

function renderSettlement(state) {
  const box = $("#settlement");
  const settlement = shownSettlement(state);
  if (!settlement) {
    box.classList.add("hidden");
    return;
  }
  box.classList.remove("hidden");
  box.classList.toggle("over", !state.finished); // over the board while play goes on
  box.dataset.hand = String(settlement.hand_no);
  const title = el("div", { class: "settlement-head" },
    el("h2", {}, `Hand ${settlement.hand_no} settlement`),
    state.finished ? null : el("button", { type: "button", class: "close", onclick: closeSettlement }, "Close", el("kbd", {}, "Esc")));
  const wins = settlement.wins.map((win) => el("div", { class: "win" },
    el("div", {},
      el("strong", {}, `${capital(seatName(state, win.winner))} won by ${WIN_KINDS[win.kind] || win.kind}`),
      win.discarder !== null && win.discarder !== undefined ? ` from ${seatName(state, win.discarder)}` : "",
      " on ", tile(win.tile, "small"), ` ${tileName(win.tile)}`),
    el("p", { class: "payment" }, payment(state, win)),
    el("div", {}, "Hand: ", win.concealed.map((name) => tile(name, "small")),
      win.melds.map((meld) => el("span", { class: "meld" }, ` ${MELDS[meld.kind] || ""} `,
        (meld.tiles || [meld.tile]).map((name) => tile(name, "small"))))),
    el("ul", { class: "fans" }, win.fans.length
      ? win.fans.map((fan) => el("li", { dataset: { fan: fan.id } }, `${fan.name} (${fan.id.replace(/_/g, " ")}): ${
        fan.doubling ? `doubles the points (×${fan.fan})` : win.points ? `${fan.fan} points` : `bonus ${fan.fan}`}`))
      : el("li", {}, "No bonus item applied."))));
  const draw = settlement.outcome === "exhaustive_draw"
    ? el("p", {}, "荒庄 exhaustive draw: the wall ran out and nobody won; kong payments are void.") : null;
  const falseWins = (settlement.false_wins || []).map((seat) => el("p", { class: "false-win" },
    `诈胡 false win: ${seatName(state, seat)} declared a win without a winning hand and pays every other seat.`));
  const results = el("table", { class: "list" },
    el("thead", {}, el("tr", {}, ["Player", "Hand", "Kong", "Total", "Score"].map((h, i) =>
      el("th", { class: i > 0 ? "num" : "" }, h)))),
    el("tbody", {}, settlement.results.map((r) => el("tr", {},
      el("td", {}, capital(seatName(state, r.seat))),
      el("td", { class: "num" }, signed(r.hand)), el("td", { class: "num" }, signed(r.kong)),
      el("td", { class: "num" }, el("strong", {}, signed(r.total))),
      el("td", { class: "num" }, String(state.seats[r.seat] ? state.seats[r.seat].score : ""))))));
  const note = el("p", { class: "small-print" }, "Hand: points from the win; Kong: each kong's payment; ",
    "Score: the match so far.");
  const end = state.finished
    ? el("p", { class: "final" }, el("strong", {}, "Final scores: "),
      state.seats.map((s) => `${capital(seatName(state, s.seat))} ${signed(s.score)}`).join(" · "),
      " · ", el("a", { href: reviewUrl(state), class: "review" }, "review the play against the expert"))
    : null;
  fill(box, title, draw, falseWins, wins, results, note, end);
}

function closeSettlement() {
  if (!page.settlement) return;
  page.closed = page.settlement.hand_no;
  save();
  if (page.state) renderSettlement(page.state);
}

function renderTitle(state) {
  if (state.mode !== "seat") return;
  const mine = deciding(state) && page.answered !== state.decision_id;
  document.title = mine ? `● Your turn · ${TITLE}` : state.auto && !state.finished ? `托管 · ${TITLE}` : TITLE;
}

function render(state) {
  const board = $("#board");
  board.dataset.phase = state.phase;
  board.dataset.hand = String(state.hand_no);
  board.dataset.mode = state.mode;
  noteArrivals(state);
  const viewer = viewerSeat(state);
  state.seats.forEach((view) => renderSeat(state, view, POSITIONS[(view.seat - viewer + 4) % 4]));
  renderCenter(state);
  renderHand(state);
  renderHint(state);
  renderSettlement(state);
  renderTitle(state);
  if ($("#title")) fill($("#title"), state.table_id || "");
  if (state.finished && state.match_id && $("#review-link")) {
    const link = $("#review-link");
    link.href = reviewUrl(state);
    link.classList.remove("hidden");
  }
  if (state.tournament_id && $("#tournament-link")) {
    const link = $("#tournament-link");
    link.href = `/tournament.html?id=${encodeURIComponent(state.tournament_id)}`;
    link.classList.remove("hidden");
  }
  tick();
}

function reviewUrl(state) {
  return `/review.html?match=${encodeURIComponent(state.match_id)}&seat=${viewerSeat(state)}`;
}

function figures(s) {
  const parts = [];
  if (s.shanten_after !== null && s.shanten_after !== undefined) {
    parts.push(s.shanten_after < 0 ? "a winning hand" : s.shanten_after === 0 ? "ready (听) after"
      : `${s.shanten_after} from ready after`);
  }
  const useful = s.useful.length
    ? el("span", { class: "useful" }, "useful ", s.useful.map((u) =>
      el("span", { title: `${u.count} unseen` }, tile(u.tile, "small"), `×${u.count} `)), `(${s.useful_unseen} unseen)`)
    : null;
  if (s.danger !== null && s.danger !== undefined) parts.push(`danger ${s.danger.toFixed(2)}`);
  if (s.expected_value !== null && s.expected_value !== undefined) {
    parts.push(`value ${s.expected_value >= 0 ? "+" : ""}${s.expected_value.toFixed(2)}`);
  }
  return el("div", { class: "figures" }, parts.join(" · "), parts.length && useful ? " · " : "", useful);
}

function renderHint(state) {
  const box = $("#hint-box");
  const button = $("#hint");
  button.disabled = !state.decision_id || state.auto || state.finished;
  document.querySelectorAll(".suggested").forEach((node) => node.classList.remove("suggested"));
  const hint = page.hint;
  if (!hint || hint.decision_id !== (state.decision_id || "")) {
    page.hint = null;
    box.classList.add("hidden");
    fill(box);
    return;
  }
  box.classList.remove("hidden");
  if (hint.error) {
    fill(box, el("span", { class: "error" }, tileWords(hint.error)));
    return;
  }
  const [best, ...others] = hint.suggestions;
  box.dataset.decision = hint.decision_id;
  fill(box,
    el("div", { class: "best", dataset: { kind: best.kind, tile: best.tile || "" } },
      tileWords(`Expert (level ${hint.level}) suggests: ${best.label}${best.then ? `, then ${best.then}` : ""} — ${best.reason}`)),
    figures(best),
    others.length ? el("ol", { start: 2 }, others.map((s) => el("li", { dataset: { kind: s.kind, tile: s.tile || "" } },
      tileWords(`${s.label}: ${s.reason}`), figures(s)))) : null);
  if (best.kind === "discard") {
    const node = document.querySelector(`#hand .tile.can[data-tile="${best.tile}"]`);
    if (node) node.classList.add("suggested");
  } else {
    const node = Array.from(document.querySelectorAll("#option-buttons button")).find((b) =>
      b.dataset.kind === best.kind);
    if (node) node.classList.add("suggested");
  }
}

async function askHint() {
  const state = page.state;
  if (!seatBase || !state) return;
  if (!state.decision_id || state.auto) {
    page.hint = { decision_id: state.decision_id || "", error: "Nothing to decide right now: a hint is for your open decision." };
  } else {
    try {
      page.hint = await api(`${seatBase}/hint`);
    } catch (error) {
      page.hint = { decision_id: state.decision_id, error: error.message };
    }
  }
  if (page.state) renderHint(page.state);
}

/** The clock of the person's open decision: the move's own time, then the time bank. */
function clock(state) {
  const now = Date.now();
  const bank = Math.max(0, state.time_bank_ms || 0);
  const moveEnds = state.deadline_ms - bank; // the engine's deadline is the move's time plus the bank
  const move = Math.max(0, Math.ceil((moveEnds - now) / 1000));
  const bankLeft = Math.max(0, Math.ceil(Math.min(bank, state.deadline_ms - now) / 1000));
  return { move, bank: bankLeft, urgent: move === 0 && bankLeft <= 5 };
}

function tick() {
  const state = page.state;
  const timer = $("#timer");
  if (!state || state.finished) {
    fill(timer);
    return;
  }
  if (state.deadline_ms && deciding(state)) {
    const { move, bank, urgent } = clock(state);
    fill(timer,
      el("span", { class: "move", title: "this move's time" }, String(move)), " + ",
      el("span", { class: "bank", title: "your time bank" }, String(bank)), " s",
      el("span", { class: "clock-words" }, move ? "move + time bank, then 托管: the engine plays" : "time bank: at 0 the engine plays your seat (托管)"));
    timer.classList.toggle("urgent", urgent);
    timer.title = "Your move's time, then your time bank for the match; when both run out the engine plays your seat (托管 auto-play) until you press “I'm back”.";
  } else if (state.turn_since_ms && state.phase === "turn") {
    fill(timer, el("span", { class: "clock-words" },
      `${capital(seatName(state, state.current_seat))}: ${Math.max(0, Math.round((Date.now() - state.turn_since_ms) / 1000))} s on this turn`));
    timer.classList.remove("urgent");
  } else {
    fill(timer);
  }
  renderArmed(state);
}

/** The controls of a decision come on SETTLE_MS after it came (see send). */
function renderArmed(state) {
  if (state.mode === "seat" && page.armedAt && Date.now() >= page.armedAt) {
    page.armedAt = 0;
    renderHand(state);
    renderTitle(state);
  }
}

function storageKey(state) {
  return `hebei.table.${state.match_id}.${state.mode === "seat" ? state.viewer : "watch"}`;
}

/** The table's log and settlement, kept in the tab: a reload shows them again. */
function save() {
  if (!page.store) return;
  try {
    sessionStorage.setItem(page.store, JSON.stringify({ log: page.log, settlement: page.settlement, closed: page.closed }));
  } catch (error) {
    // storage full or off: the page works without it
  }
}

function restore(state) {
  page.store = storageKey(state);
  let kept = null;
  try {
    kept = JSON.parse(sessionStorage.getItem(page.store) || "null");
  } catch (error) {
    kept = null;
  }
  if (!kept) return;
  page.log = [...page.log, ...(kept.log || [])].slice(0, 60);
  page.settlement = page.settlement || kept.settlement || null;
  page.closed = kept.closed || 0;
  showLog();
}

function showLog() {
  fill($("#log"), page.log.map((line) => el("li", {}, line)));
}

function addLog(lines) {
  for (const line of lines) page.log.unshift(tileWords(line));
  page.log.length = Math.min(page.log.length, 60);
  showLog();
  save();
}

function notice(text) {
  fill($("#notice"), tileWords(text || ""));
}

/** Answer the open decision: the command carries the decision id it answers, and a second
 * answer to the same decision (a double click, a key pressed twice) is not sent. */
async function send(command, key = false) {
  const state = page.state;
  if (!seatBase || !state || controlsOff(state, key)) return;
  const decision = state.decision_id;
  page.answered = decision;
  page.answeredAt = Date.now();
  renderHand(state);
  renderTitle(state);
  try {
    // the id as the state has it: a string of digits (a JSON number loses them past 2^53)
    await api(`${seatBase}/commands`, { method: "POST", body: { command, decision_id: decision } });
    notice("");
  } catch (error) {
    if (error.code === "DECISION_OVER") return; // answered already or closed: nothing to say
    if (page.answered === decision && page.state) {
      page.answered = null; // not taken (the gateway unreachable, a command refused): answer again
      renderHand(page.state);
    }
    notice(error.message);
  }
}

async function toggleAuto(on) {
  if (!seatBase || !page.state) return;
  const want = typeof on === "boolean" ? on : !page.state.auto;
  try {
    await api(`${seatBase}/auto`, { method: "POST", body: { on: want } });
    notice(want ? "Auto-play on (托管): the engine plays your seat." : "Taking your seat back from auto-play…");
  } catch (error) {
    notice(error.message);
  }
}

/** A focused control (a button, a link, a field) takes Enter and Space itself. */
function controlFocused() {
  const active = document.activeElement;
  return Boolean(active && active !== document.body && active.matches("button, a[href], input, select, textarea, summary, [tabindex]"));
}

function onKey(event) {
  if (!seatBase || !page.state || event.ctrlKey || event.metaKey || event.altKey) return;
  if ($("#board") && $("#board").closest(".hidden")) return; // the table is not shown
  if (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
  const key = event.key.toLowerCase();
  if ((key === "enter" || key === " ") && controlFocused()) return;
  if (key === "escape") {
    closeSettlement();
    return;
  }
  if (page.pendingKong && /^[1-9]$/.test(key)) {
    page.pendingKong = false;
    send(`k${key}`, true);
    return;
  }
  page.pendingKong = false;
  if (key === "?") {
    $("#help").classList.toggle("hidden");
  } else if (key === "t") {
    toggleAuto();
  } else if (key === "s") {
    askHint();
  } else if (key === "enter" || key === "x") {
    send("x", true);
  } else if (key === "h" || key === "p") {
    send(key, true);
  } else if (key === "k") {
    const kongs = page.state.options.filter((o) => o.key.startsWith("k"));
    if (kongs.length > 1) {
      page.pendingKong = true;
      notice("Which kong? Press 1 or 2.");
    } else {
      send("k", true);
    }
  } else if (/^[1-9a-e]$/.test(key)) {
    send(key, true);
  } else {
    return;
  }
  event.preventDefault();
}

/** The bar at the bottom (hand and buttons) takes room the page leaves free under the board. */
function reserveBar(area) {
  const root = document.documentElement.style;
  const header = $("header.top");
  const set = () => {
    root.setProperty("--bar-h", area.offsetParent === null ? "0px" : `${Math.ceil(area.getBoundingClientRect().height)}px`);
    if (header) root.setProperty("--head-h", `${Math.ceil(header.getBoundingClientRect().height)}px`);
  };
  const observer = new ResizeObserver(set);
  observer.observe(area);
  if (header) observer.observe(header);
  set();
}

const KEYS = [
  ["1-9 a-e", "discard the tile at that place (the drawn tile is last)"], ["h", "win 胡"], ["p", "pong 碰"],
  ["k", "kong 杠 (k then 1 or 2 when there are two)"], ["x, Enter", "pass 过"], ["t", "auto-play 托管 on/off"],
  ["s", "the expert's hint 提示"], ["?", "show or hide these keys"], ["Esc", "close the settlement"],
];

/** The table's markup, built into `root` (the same on every page that shows a table). */
export function mountTable(root) {
  const seat = (pos) => el("div", { class: `seat pos-${pos}`, dataset: { pos } });
  const option = (id, title, label, key) => el("button", { id, type: "button", title }, label, key ? el("kbd", {}, key) : null);
  fill(root,
    el("div", { id: "board", class: "board", "aria-live": "off" },
      seat("top"), seat("left"),
      el("div", { class: "center", id: "center" },
        el("div", { class: "info", id: "info" }, "Connecting to the table…"),
        el("div", { class: "offer", id: "offer" }), el("div", { class: "timer", id: "timer" })),
      seat("right"), seat("bottom")),
    el("section", { id: "hand-area", class: "hand-area hidden", "aria-label": "Your hand" },
      el("div", { class: "prompt", id: "prompt", "aria-live": "polite" }),
      el("div", { class: "hand", id: "hand" }),
      el("div", { class: "options", id: "options" },
        el("span", { id: "option-buttons" }),
        el("button", { id: "back", type: "button", class: "primary back hidden", onclick: () => toggleAuto(false) },
          "I'm back: play my seat", el("kbd", {}, "t")),
        option("hint", "s", "提示 Hint", "s"),
        option("auto", "t", "托管 Auto-play: off"),
        option("help-button", "?", "Keys")),
      el("div", { class: "status-line notice", id: "notice", role: "status" }),
      el("div", { id: "hint-box", class: "hint hidden", role: "status", "aria-label": "The expert's hint" })),
    el("section", { id: "settlement", class: "card settlement hidden", role: "region", "aria-label": "Settlement" }),
    el("section", { id: "help", class: "card keys", "aria-label": "Keys" }, el("h2", {}, "Keys"),
      el("dl", {}, KEYS.flatMap(([key, what]) => [el("dt", {}, el("kbd", {}, key)), el("dd", {}, what)])),
      el("p", { class: "muted" }, "Clicking or tapping a tile discards it; a focused button takes Enter and Space.")),
    el("section", { class: "card table-log" }, el("h2", {}, "What happened"), el("ul", { id: "log", class: "log" })));
  document.addEventListener("keydown", onKey);
  $("#auto").addEventListener("click", () => toggleAuto());
  $("#hint").addEventListener("click", askHint);
  $("#help-button").addEventListener("click", () => $("#help").classList.toggle("hidden"));
  reserveBar($("#hand-area"));
  setInterval(tick, 250);
}

/** A seat's "filler for Lin" names, from matchmaking's seating of the table. */
export function setPlayedBy(map) {
  if (JSON.stringify(map || {}) === JSON.stringify(page.playedBy)) return;
  page.playedBy = map || {};
  if (page.state) render(page.state);
}

/** Where a decision's controls come on: at once, or SETTLE_MS after a click that answered the
 * one before (the second click of a double click lands on nothing). */
function arm(previous, state) {
  const fresh = state.decision_id && (!previous || previous.decision_id !== state.decision_id);
  if (fresh && page.answered && Date.now() - page.answeredAt < SETTLE_MS) page.armedAt = page.answeredAt + SETTLE_MS;
}

/**
 * Follow a table's feed: `url` its SSE route, `base` the seat's routes (null: watching).
 * Handlers: onEnd(reason), onStatus(text), onFail(message, status) (a link refused for good:
 * without it the feed retries). Returns the feed (close() it to stop).
 */
export function startTable(url, base, handlers = {}) {
  if (page.feed) page.feed.close();
  seatBase = base;
  Object.assign(page, {
    state: null, log: [], hint: null, settlement: null, closed: 0, answered: null, armedAt: 0,
    controls: "", arrivals: {}, lastDiscard: null, store: null,
  });
  fill($("#log"));
  notice("");
  page.feed = new Feed(url, {
    onState(state, delta) {
      const previous = page.state;
      page.state = state;
      if (!page.store) restore(state);
      arm(previous, state);
      render(state);
      if (delta && delta.event && delta.event.time_ms) {
        const rendered = Date.now();
        // catch_up: delivered at a resumption, after the gap while the browser reconnected
        const record = {
          seq: delta.event.seq,
          dom_ms: rendered - delta.event.time_ms,
          catch_up: rendered - page.feed.openedAt < 100 && delta.event.time_ms < page.feed.openedAt,
        };
        window.hebeiLatency.push(record);
        requestAnimationFrame(() => { record.frame_ms = Date.now() - delta.event.time_ms; });
      }
    },
    onDelta(delta) {
      if (delta.log) addLog(delta.log);
      if (delta.notice) notice(delta.notice);
    },
    onEnd(reason) {
      notice(reason);
      if (handlers.onEnd) handlers.onEnd(reason);
    },
    onStatus(text) {
      if (handlers.onStatus) handlers.onStatus(text);
    },
    onFail: handlers.onFail ? (message, status) => {
      fill($("#info"), tileWords(message));
      handlers.onFail(message, status);
    } : null,
  }).start();
  window.hebeiFeed = page.feed;
  return page.feed;
}
