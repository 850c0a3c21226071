// A table in a page: a seat played (own hand, options, keys, auto-play) or a table watched
// (public information only), both from one feed of the same table view. The table page
// (table.js) and a person's tournament page (tournament.js) show it: mountTable() builds the
// markup, startTable() follows a feed; the seat's routes are under `seatBase`
// (/api/seats/KEY, or /api/tournaments/ID/me/seat by the registration's cookie).
import { $, api, el, fill, params, signed, tile, WINDS } from "./common.js";
import { Feed } from "./feed.js";

const query = params();
let seatBase = null; // where the seat's commands, auto-play and hints go; null: watching
const POSITIONS = ["bottom", "right", "top", "left"]; // play order runs counter-clockwise
const WIN_KINDS = { self_draw: "self-draw 自摸", discard: "discard 点炮", rob_kong: "robbing a kong 抢杠胡" };
const MELDS = { pong: "碰", exposed_kong: "杠", added_kong: "加杠", concealed_kong: "暗杠", chow: "吃" };

const page = {
  feed: null,
  state: null,
  pendingKong: false,
  sending: false,
  log: [],
  hint: null, // the expert's hint for the open decision (GET /api/seats/KEY/hint)
  settlement: null, // the last hand's settlement, and when it came (see SETTLEMENT_MS)
  settlementAt: 0,
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

function seatName(state, seat) {
  if (seat === state.viewer) return "You";
  const view = state.seats[seat];
  return view ? playedBy(view) || view.name : `Seat ${seat}`;
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
    hidden, el("span", { class: "muted" }, ` ${view.concealed}`));
  const melds = el("div", { class: "melds" }, view.melds.map((meld) =>
    el("span", { class: "meld", dataset: { kind: meld.kind }, title: meld.kind },
      el("span", { class: "muted" }, `${MELDS[meld.kind] || meld.name} `),
      meld.tiles ? meld.tiles.map((name) => tile(name, "small")) // a chow: its run
        : (meld.kind === "pong" ? [1, 2, 3] : [1, 2, 3, 4]).map((i) =>
          tile(meld.kind === "concealed_kong" && (i === 1 || i === 4) ? null : meld.tile, "small")))));
  const discards = el("div", { class: "discards" }, view.discards.map((name, i) => {
    const node = tile(name, "small");
    if (state.offer && state.offer.from === view.seat && i === view.discards.length - 1) node.classList.add("last");
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
    fill(offer, `${seatName(state, state.offer.from)} ${verb} `, tile(state.offer.tile, "small"));
  } else if (state.phase === "turn" && !state.finished) {
    fill(offer, state.current_seat === state.viewer ? "Your turn" : `${seatName(state, state.current_seat)}'s turn`);
  } else {
    fill(offer);
  }
}

function renderHand(state) {
  const area = $("#hand-area");
  area.classList.toggle("hidden", state.mode !== "seat");
  if (state.mode !== "seat") return;
  fill($("#hand"), state.hand.map((item) => {
    const node = tile(item.tile);
    if (item.discard) {
      node.classList.add("can");
      node.addEventListener("click", () => send(item.tile));
    }
    return el("span", { class: item.drawn ? "slot drawn" : "slot" }, node, el("kbd", {}, item.key));
  }));
  fill($("#option-buttons"), state.options.map((option) =>
    el("button", {
      type: "button", class: option.kind === "pass" ? "" : "primary",
      dataset: { command: option.command, kind: option.kind }, onclick: () => send(option.command),
    }, option.label, el("kbd", {}, option.key))));
  const auto = $("#auto");
  auto.textContent = `托管 Auto-play: ${state.auto ? "on" : "off"}`;
  auto.dataset.on = state.auto ? "1" : "0";
  auto.disabled = state.finished || state.phase === "waiting";
  fill($("#prompt"), state.prompt || (state.auto ? "The engine plays your seat (托管): press t to take over." : ""));
}

// The engine deals the next hand as soon as one ends, so a hand's settlement stays on the
// page this long into the next hand (beside it: the table goes on), not a moment.
const SETTLEMENT_MS = 15000;

function shownSettlement(state) {
  if (state.settlement && ["hand_end", "match_end"].includes(state.phase)) {
    if (!page.settlement || page.settlement.hand_no !== state.settlement.hand_no) {
      page.settlementAt = Date.now();
    }
    page.settlement = state.settlement;
    return state.settlement;
  }
  const recent = page.settlement && Date.now() - page.settlementAt < SETTLEMENT_MS;
  return recent && state.hand_no === page.settlement.hand_no + 1 ? page.settlement : null;
}

function renderSettlement(state) {
  const box = $("#settlement");
  const settlement = shownSettlement(state);
  if (!settlement) {
    box.classList.add("hidden");
    return;
  }
  box.classList.remove("hidden");
  const title = el("h2", {}, `Hand ${settlement.hand_no} settlement`);
  const wins = settlement.wins.map((win) => el("div", { class: "win" },
    el("div", {},
      el("strong", {}, `${seatName(state, win.winner)} won by ${WIN_KINDS[win.kind] || win.kind}`),
      win.discarder !== null && win.discarder !== undefined ? ` from ${seatName(state, win.discarder)}` : "",
      " on ", tile(win.tile, "small"),
      win.points ? ` · ${win.points} points` : ` · base ${win.base} + bonus ${win.bonus}`),
    el("div", {}, "hand: ", win.concealed.map((name) => tile(name, "small")),
      win.melds.map((meld) => el("span", { class: "meld" }, ` ${MELDS[meld.kind] || ""} `,
        (meld.tiles || [meld.tile]).map((name) => tile(name, "small"))))),
    el("ul", { class: "fans" }, win.fans.length
      ? win.fans.map((fan) => el("li", { dataset: { fan: fan.id } }, `${fan.name} ${fan.id} · ${
        fan.doubling ? `×${fan.fan}` : win.points ? `${fan.fan} points` : `${fan.fan} fan`}`))
      : el("li", {}, "(no bonus items)"))));
  const draw = settlement.outcome === "exhaustive_draw"
    ? el("p", {}, "荒庄 exhaustive draw: nobody won; kong payments are void.") : null;
  const falseWins = (settlement.false_wins || []).map((seat) => el("p", { class: "false-win" },
    `诈胡 false win: ${seatName(state, seat)} declared a win without a winning hand and pays every other seat.`));
  const results = el("table", { class: "list" },
    el("thead", {}, el("tr", {}, ["Seat", "Player", "Hand", "Kong", "Total", "Score"].map((h, i) =>
      el("th", { class: i > 1 ? "num" : "" }, h)))),
    el("tbody", {}, settlement.results.map((r) => el("tr", {},
      el("td", {}, String(r.seat)), el("td", {}, seatName(state, r.seat)),
      el("td", { class: "num" }, signed(r.hand)), el("td", { class: "num" }, signed(r.kong)),
      el("td", { class: "num" }, el("strong", {}, signed(r.total))),
      el("td", { class: "num" }, String(state.seats[r.seat] ? state.seats[r.seat].score : ""))))));
  const end = state.finished
    ? el("p", { class: "final" }, el("strong", {}, "Final scores: "),
      state.seats.map((s) => `${seatName(state, s.seat)} ${signed(s.score)}`).join(" · "),
      state.seed ? ` · seed ${state.seed} (published for audit)` : "",
      " · ", el("a", { href: reviewUrl(state), class: "review" }, "review the play against the expert"))
    : null;
  fill(box, title, draw, falseWins, wins, results, end);
}

function render(state) {
  const board = $("#board");
  board.dataset.phase = state.phase;
  board.dataset.hand = String(state.hand_no);
  board.dataset.mode = state.mode;
  const viewer = viewerSeat(state);
  state.seats.forEach((view) => renderSeat(state, view, POSITIONS[(view.seat - viewer + 4) % 4]));
  renderCenter(state);
  renderHand(state);
  renderHint(state);
  renderSettlement(state);
  if ($("#title")) fill($("#title"), `${state.table_id || ""} · ${state.match_id}`);
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
    fill(box, el("span", { class: "error" }, hint.error));
    return;
  }
  const [best, ...others] = hint.suggestions;
  box.dataset.decision = hint.decision_id;
  fill(box,
    el("div", { class: "best", dataset: { kind: best.kind, tile: best.tile || "" } },
      `Expert (level ${hint.level}) suggests: ${best.label}${best.then ? `, then ${best.then}` : ""} — ${best.reason}`),
    figures(best),
    others.length ? el("ol", { start: 2 }, others.map((s) => el("li", { dataset: { kind: s.kind, tile: s.tile || "" } },
      `${s.label}: ${s.reason}`, figures(s)))) : null);
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
  if (!state.decision_id) {
    page.hint = { decision_id: "", error: "Nothing to decide right now: a hint is for your open decision." };
  } else {
    try {
      page.hint = await api(`${seatBase}/hint`);
    } catch (error) {
      page.hint = { decision_id: state.decision_id, error: error.message };
    }
  }
  if (page.state) renderHint(page.state);
}

function tick() {
  const state = page.state;
  const timer = $("#timer");
  if (!state || state.finished) {
    fill(timer);
    return;
  }
  if (state.deadline_ms && state.options.length + state.hand.filter((t) => t.discard).length > 0) {
    const left = Math.max(0, Math.round((state.deadline_ms - Date.now()) / 1000));
    fill(timer, `${left} s`);
    timer.classList.toggle("urgent", left <= 5);
  } else if (state.turn_since_ms && state.phase === "turn") {
    fill(timer, `${Math.max(0, Math.round((Date.now() - state.turn_since_ms) / 1000))} s`);
    timer.classList.remove("urgent");
  } else {
    fill(timer);
  }
}

function addLog(lines) {
  for (const line of lines) page.log.unshift(line);
  page.log.length = Math.min(page.log.length, 60);
  fill($("#log"), page.log.map((line) => el("li", {}, line)));
}

function notice(text) {
  fill($("#notice"), text || "");
}

async function send(command) {
  if (!seatBase) return;
  try {
    await api(`${seatBase}/commands`, { method: "POST", body: { command } });
    notice("");
  } catch (error) {
    notice(error.message);
  }
}

async function toggleAuto() {
  if (!seatBase || !page.state) return;
  try {
    await api(`${seatBase}/auto`, { method: "POST", body: { on: !page.state.auto } });
    notice(page.state.auto ? "Taking over from auto-play…" : "Auto-play on (托管): the engine plays your seat.");
  } catch (error) {
    notice(error.message);
  }
}

function onKey(event) {
  if (!seatBase || !page.state || event.ctrlKey || event.metaKey || event.altKey) return;
  if ($("#board") && $("#board").closest(".hidden")) return; // the table is not shown
  if (["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName)) return;
  const key = event.key.toLowerCase();
  if (page.pendingKong && /^[1-9]$/.test(key)) {
    page.pendingKong = false;
    send(`k${key}`);
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
    send("x");
  } else if (key === "h" || key === "p") {
    send(key);
  } else if (key === "k") {
    const kongs = page.state.options.filter((o) => o.key.startsWith("k"));
    if (kongs.length > 1) {
      page.pendingKong = true;
      notice("Which kong? Press 1 or 2.");
    } else {
      send("k");
    }
  } else if (/^[1-9a-e]$/.test(key)) {
    send(key);
  } else {
    return;
  }
  event.preventDefault();
}

/** The table's markup, built into `root` (the same on every page that shows a table). */
export function mountTable(root) {
  const seat = (pos) => el("div", { class: `seat pos-${pos}`, dataset: { pos } });
  const option = (id, title, label, key) => el("button", { id, type: "button", title }, label, key ? el("kbd", {}, key) : null);
  fill(root,
    el("div", { id: "board", class: "board", "aria-live": "off" },
      seat("top"), seat("left"),
      el("div", { class: "center", id: "center" },
        el("div", { class: "info", id: "info" }, "Waiting for the table…"),
        el("div", { class: "offer", id: "offer" }), el("div", { class: "timer", id: "timer" })),
      seat("right"), seat("bottom")),
    el("section", { id: "hand-area", class: "hand-area hidden", "aria-label": "Your hand" },
      el("div", { class: "hand", id: "hand" }),
      el("div", { class: "options", id: "options" },
        el("span", { id: "option-buttons" }),
        option("hint", "s", "提示 Hint", "s"),
        option("auto", "t", "托管 Auto-play: off"),
        option("help-button", "?", "Keys")),
      el("div", { class: "prompt", id: "prompt" }),
      el("div", { class: "status-line notice", id: "notice", role: "status" }),
      el("div", { id: "hint-box", class: "hint hidden", role: "status", "aria-label": "The expert's hint" }),
      el("p", { id: "help", class: "muted hidden" }, "Keys: 1-9 a-e discard the tile at that position (the drawn ",
        "tile is last) · h win (胡) · p pong (碰) · k kong (杠; k then 1 or 2 when there are two) · ",
        "x or Enter pass (过) · t auto-play (托管) on/off · s the expert's hint (提示) · ? these keys. ",
        "Clicking a tile discards it.")),
    el("section", { id: "settlement", class: "card settlement hidden", "aria-label": "Settlement" }),
    el("section", { class: "card table-log" }, el("h2", {}, "What happened"), el("ul", { id: "log", class: "log" })));
  document.addEventListener("keydown", onKey);
  $("#auto").addEventListener("click", toggleAuto);
  $("#hint").addEventListener("click", askHint);
  $("#help-button").addEventListener("click", () => $("#help").classList.toggle("hidden"));
  setInterval(tick, 250);
}

/** A seat's "filler for Lin" names, from matchmaking's seating of the table. */
export function setPlayedBy(map) {
  if (JSON.stringify(map || {}) === JSON.stringify(page.playedBy)) return;
  page.playedBy = map || {};
  if (page.state) render(page.state);
}

/**
 * Follow a table's feed: `url` its SSE route, `base` the seat's routes (null: watching).
 * Handlers: onEnd(reason), onStatus(text). Returns the feed (close() it to stop).
 */
export function startTable(url, base, handlers = {}) {
  if (page.feed) page.feed.close();
  seatBase = base;
  Object.assign(page, { state: null, log: [], hint: null, settlement: null, settlementAt: 0 });
  fill($("#log"));
  notice("");
  page.feed = new Feed(url, {
    onState(state, delta) {
      page.state = state;
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
  }).start();
  window.hebeiFeed = page.feed;
  return page.feed;
}
