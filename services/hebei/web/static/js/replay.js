// My matches (GET /api/my/matches: the matches this browser played, from its own cookie) and
// the hand replayer (?match=ID&seat=N): an ended match's hands step by step, every seat's
// tiles shown (GET /api/tables/ID/hands/N: rebuilt by the gateway from the engine's public
// events and the seed it publishes once the match has ended; a live match is refused).
import { $, HONORS, api, el, fill, params, seatLabel, signed, tile, tileLabel } from "./common.js";

const page = { matches: null, match: null, seat: null, hand: null, step: 0, hands: 0 };
window.hebeiReplay = page; // for the tests

const VERBS = {
  discard: "discards", pong: "pongs (碰)", exposed_kong: "kongs (杠)", concealed_kong: "kongs, concealed (暗杠)",
  added_kong: "adds a kong (加杠)", chow: "chows (吃)", win: "wins (胡)", pass: "passes", draw: "draws",
};

function where(item) {
  const match = item.match;
  if (item.tournament_id || (match && match.tournament_id)) {
    const id = item.tournament_id || match.tournament_id;
    return el("a", { href: `/tournament.html?id=${encodeURIComponent(id)}` },
      `${id}${match && match.round_no ? ` r${match.round_no}` : ""}`);
  }
  return "quick play";
}

function listRow(item) {
  const match = item.match;
  const ended = item.status === "finished" || item.status === "dissolved";
  const players = match ? match.seats.map((s) => (s.seat === item.seat ? el("strong", {}, seatLabel(s)) : seatLabel(s))) : [];
  const joined = [];
  players.forEach((p, i) => { if (i) joined.push(", "); joined.push(p); });
  const links = [];
  if (ended && match && match.hands_played > 0) {
    links.push(el("a", { class: "replay", href: item.replay }, "Replay"));
  }
  if (item.status === "finished") links.push(" · ", el("a", { href: item.review }, "Review"));
  if (!ended && match) links.push(el("a", { href: `/table.html?match=${encodeURIComponent(item.match_id)}` }, "Watch"));
  return el("tr", { dataset: { match: item.match_id } },
    el("td", { title: item.match_id }, item.match_id.slice(0, 14)),
    el("td", {}, where(item)),
    el("td", { class: "num" }, String(item.seat)),
    el("td", {}, ...joined),
    el("td", { class: "num" }, match ? signed(item.score) : ""),
    el("td", { class: "num" }, item.place ? String(item.place) : ""),
    el("td", {}, item.status),
    el("td", {}, ...links));
}

async function loadList() {
  try {
    const data = await api("/api/my/matches");
    page.matches = data.matches;
    fill($("#matches tbody"), data.matches.map(listRow));
    $("#matches").classList.toggle("hidden", data.matches.length === 0);
    fill($("#list-status"), data.matches.length ? ""
      : "No matches yet on this browser: play against bots from the lobby, or your tournament from its page.");
  } catch (error) {
    fill($("#list-status"), el("span", { class: "error" }, error.message));
  }
}

// ----------------------------------------------------------------------------- the replayer

function seatName(seat) {
  const found = page.match && page.match.seats.find((s) => s.seat === seat);
  return found ? `${seatLabel(found)} (seat ${seat})` : `seat ${seat}`;
}

function windOf(seat) {
  return HONORS[(seat - page.hand.dealer + 4) % 4];
}

function describe(event) {
  const who = event.seat === undefined || event.seat === null ? "" : seatName(event.seat);
  switch (event.type) {
    case "hand_start": return `Hand ${event.hand_no + 1}: ${seatName(event.dealer)} deals (庄)`;
    case "deal": return "The tiles are dealt";
    case "draw": return `${who} draws ${tileLabel(event.tile)}${event.replacement ? " (a replacement)" : ""}`;
    case "hand_end": {
      const totals = event.totals || [];
      const scores = totals.map((t, s) => `${seatName(s)} ${signed(t)}`).join(", ");
      return `The hand ends (${event.outcome || "over"})${scores ? `: ${scores}` : ""}`;
    }
    default: {
      const verb = VERBS[event.type] || event.type;
      const what = event.tile ? ` ${tileLabel(event.claimed || event.tile)}` : "";
      return `${who} ${verb}${what}${event.auto ? " (auto-played)" : ""}`;
    }
  }
}

function row(label, children) {
  return el("div", { class: "replay-row" }, el("span", { class: "label" }, label), ...children);
}

function seatBox(seat, state, acting) {
  const classes = ["replay-seat"];
  if (seat === page.seat) classes.push("mine");
  if (acting) classes.push("acting");
  return el("div", { class: classes.join(" "), dataset: { seat: String(seat) } },
    el("h3", {}, `${windOf(seat)} · ${seatName(seat)}${seat === page.seat ? " · you" : ""}`),
    row("Hand", state.concealed.map((name) => tile(name, "small"))),
    row("Melds", state.melds.map((meld) => el("span", { class: "replay-meld", dataset: { kind: meld.kind } },
      ...meld.tiles.map((name) => tile(meld.kind === "concealed_kong" ? name : name, "small"))))),
    row("Discards", state.discards.map((name) => tile(name, "small"))));
}

function render() {
  const hand = page.hand;
  const step = hand.steps[page.step];
  const acted = step.events.find((e) => e.seat !== undefined && e.type !== "draw" && e.type !== "hand_end");
  const seats = step.seats.map((state, seat) => seatBox(seat, state, acted && acted.seat === seat));
  const mine = page.seat ?? 0;
  const order = [0, 1, 2, 3].map((i) => (mine + i) % 4); // your seat first, then in turn
  fill($("#board"), ...order.map((s) => seats[s]));
  fill($("#step-log"), ...step.events.map((event) => el("li", { dataset: { type: event.type } }, describe(event))));
  fill($("#position"), `step ${page.step} of ${hand.steps.length - 1}${step.wall !== null ? ` · ${step.wall} tiles left` : ""}`);
  $("#prev").disabled = $("#first").disabled = page.step === 0;
  $("#next").disabled = $("#last").disabled = page.step >= hand.steps.length - 1;
  $("#board").dataset.step = String(page.step);
}

function go(step) {
  if (!page.hand) return;
  page.step = Math.max(0, Math.min(step, page.hand.steps.length - 1));
  render();
}

async function loadHand(number) {
  fill($("#replay-status"), "Rebuilding the hand from the table's public events…");
  try {
    const data = await api(`/api/tables/${encodeURIComponent(page.matchId)}/hands/${number}`);
    page.match = data.match;
    page.hands = data.hands;
    page.hand = data;
    page.step = 0;
    fill($("#hand"), ...Array.from({ length: data.hands }, (_, i) =>
      el("option", { value: String(i + 1), selected: i + 1 === number }, String(i + 1))));
    fill($("#title"), `${page.matchId} · hand ${number} of ${data.hands}`);
    fill($("#replay-status"), "");
    render();
  } catch (error) {
    page.hand = null;
    fill($("#board"));
    fill($("#replay-status"), el("span", { class: "error" }, error.message));
  }
}

function startReplay(matchId, seat) {
  page.matchId = matchId;
  page.seat = Number.isInteger(seat) && seat >= 0 && seat <= 3 ? seat : null;
  $("#replay-card").classList.remove("hidden");
  $("#review-link").href = `/review.html?match=${encodeURIComponent(matchId)}&seat=${page.seat ?? 0}`;
  $("#hand").addEventListener("change", () => loadHand(Number($("#hand").value)));
  $("#first").addEventListener("click", () => go(0));
  $("#prev").addEventListener("click", () => go(page.step - 1));
  $("#next").addEventListener("click", () => go(page.step + 1));
  $("#last").addEventListener("click", () => go(Infinity));
  document.addEventListener("keydown", (event) => {
    if (event.target && ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1 };
    if (event.key in moves) go(page.step + moves[event.key]);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(Infinity);
    else return;
    event.preventDefault();
  });
  loadHand(1);
}

$("#forget").addEventListener("click", async () => {
  await api("/api/my/matches", { method: "DELETE" }).catch(() => null);
  loadList();
});

const query = params();
if (query.get("match")) startReplay(query.get("match"), Number(query.get("seat") ?? "0"));
loadList();
