// A tournament: summary, standings with tie-breaks, every round's seating with its quality,
// and the live tables to click into; one feed keeps it current.
//
// It is also the person's page for the whole event. Registering here (or entering a player
// id and secret once, on another device) sets an HttpOnly cookie for this tournament's
// /me routes; from then on the page follows /me/events (the tournament as the person sees it)
// and, while a match of theirs is open, shows their table (tableview.js) over the cookie's
// seat routes; between rounds: their result, the standings, the next round and its countdown.
import { $, api, el, fill, params, seatLabel, signed } from "./common.js";
import { Feed } from "./feed.js";
import { mountTable, setPlayedBy, startTable } from "./tableview.js";

const id = params().get("id");
const base = `/api/tournaments/${encodeURIComponent(id)}`;
const WINDS = ["东 East", "南 South", "西 West", "北 North"];
const STATUS = { active: "", withdrawn: "withdrawn", no_show: "no-show", removed: "removed" };
const ORDINAL = ["", "1st", "2nd", "3rd", "4th"];

const view = {
  state: null, // the tournament (public, or as the person sees it)
  me: null, // the person, when signed in
  session: "", // the seat session whose table is shown (me.seat.session)
  tableEnded: "", // the seat session whose feed ended
  credentials: null, // shown once after registering
};
window.hebeiTournament = view;

function problem(text) {
  const node = $("#problem");
  node.textContent = text || "";
  node.classList.toggle("hidden", !text);
}

function renderSummary(t) {
  const problems = t.problems.length
    ? el("ul", { class: "error" }, t.problems.map((p) => el("li", {}, p))) : null;
  fill($("#summary"),
    el("h2", {}, t.name, " ", el("span", { class: "badge", dataset: { status: t.status } }, t.status)),
    el("p", {},
      `Round ${t.current_round} of ${t.rounds} · ${t.players} players (${t.people} people`,
      t.fillers ? `, ${t.fillers} fillers` : "", `) · ${t.seating} seating · `,
      t.hands ? `${t.hands} hands a match` : "", t.status_reason ? ` · ${t.status_reason}` : ""),
    el("p", { class: "muted" }, `id ${t.tournament_id}`),
    problems);
  document.title = `hebei · ${t.name}`;
}

function renderStandings(standings, tournament) {
  const body = $("#standings tbody");
  if (!standings) {
    fill(body);
    return;
  }
  const mine = view.me && view.me.player_id;
  fill(body, standings.ranking.map((row) => el("tr", {
    class: [row.filler || row.status !== "active" ? "muted" : "", row.player_id === mine ? "me" : ""].join(" ").trim(),
    dataset: { player: row.player_id, status: row.status || "active" },
  },
  el("td", { class: "num" }, row.rank ? String(row.rank) : "–"),
  el("td", {}, row.name, row.filler ? " (filler)" : "", row.player_id === mine ? " (you)" : ""),
  el("td", { class: "num" }, String(row.points)),
  el("td", { class: "num" }, String(row.hands_won)),
  el("td", { class: "num hide-narrow" }, String(row.dealt_in)),
  el("td", { class: "num hide-narrow" }, String(row.best_match)),
  el("td", { class: "num hide-narrow" }, String(row.penalty_points)),
  el("td", { class: "num hide-narrow" }, String(row.placement_points)),
  el("td", { class: "hide-narrow" }, row.decided_by === "seed_draw" ? "" : (row.decided_by || "").replace(/_/g, " ")),
  el("td", {}, STATUS[row.status] ? el("span", { class: "badge warn" }, STATUS[row.status]) : "active"))));
  const notes = [];
  if (standings.round_no) notes.push(`after round ${standings.round_no}`);
  if (tournament && tournament.hide_round_results && tournament.status === "running") {
    notes.push("results of the round being played are hidden until it ends");
  }
  if (standings.mismatch) notes.push(`mismatch: ${standings.problems.join("; ")}`);
  fill($("#standings-note"), notes.join(" · "));
}

function quality(q) {
  return `repeat pairs ${q.repeat_pairs} · in a row ${q.consecutive_repeats} · most met ${q.max_pair_meetings}` +
    ` · wind spread ${q.wind_spread} · standings spread ${q.standings_spread}` +
    "";
}

function renderRounds(rounds) {
  const blocks = [...rounds].reverse().map((round) => el("div", { class: "round", dataset: { round: round.round_no } },
    el("h3", {}, `Round ${round.round_no} `, el("span", { class: "badge" }, round.finished ? "finished" : "playing"),
      " ", el("a", { class: "small-print", href: `/tournaments/${encodeURIComponent(id)}/print/round/${round.round_no}` }, "print the seating")),
    el("p", { class: "muted quality" }, quality(round.quality)),
    el("table", { class: "list" },
      el("thead", {}, el("tr", {}, el("th", {}, "Table"), WINDS.map((w) => el("th", { class: "hide-narrow" }, w)),
        el("th", { class: "num" }, "Hands"), el("th", {}, "Status"))),
      el("tbody", {}, round.tables.map((t) => {
        const live = t.status === "playing" || t.status === "waiting";
        const open = () => { window.location.href = `/table.html?match=${encodeURIComponent(t.match_id)}`; };
        return el("tr", { class: "clickable", dataset: { match: t.match_id, live: live ? "1" : "0" }, onclick: open },
          el("td", {}, el("a", { href: `/table.html?match=${encodeURIComponent(t.match_id)}` }, t.table_id || t.match_id),
            el("div", { class: "muted" }, t.seats.map(seatLabel).join(", "))),
          t.seats.map((s) => el("td", { class: "hide-narrow", dataset: { playedBy: s.played_by || "" } }, seatLabel(s))),
          el("td", { class: "num" }, String(t.hands_played)),
          el("td", {}, live ? el("span", { class: "badge ok" }, "live") : t.status,
            t.dissolved_reason ? ` (${t.dissolved_reason})` : ""));
      })))));
  fill($("#rounds"), blocks.length ? blocks : el("p", { class: "muted" }, "No round seated yet."));
}

function render(state) {
  view.state = state;
  if (state.me) view.me = state.me;
  if (state.tournament) renderSummary(state.tournament);
  renderStandings(state.standings, state.tournament);
  renderRounds(state.rounds || []);
  if (state.me) renderMe(state.me, state.tournament);
  else renderJoin(state.tournament);
}

function setStatus(text) {
  const badge = $("#connection");
  fill(badge, text);
  badge.className = `badge ${text === "live" ? "ok" : text === "ended" ? "" : "warn"}`;
}

// ------------------------------------------------------------------ not signed in

function renderJoin(t) {
  $("#join").classList.remove("hidden");
  $("#you").classList.add("hidden");
  if (!t) return;
  $("#register").classList.toggle("hidden", !t.registration_open);
  $("#code-label").classList.toggle("hidden", !t.registration_code_required);
  if (!t.registration_open && !$("#register-status").textContent) {
    fill($("#register-status"), el("span", { class: "muted" }, `Registration is closed (the tournament is ${t.status}).`));
  }
}

async function register(event) {
  event.preventDefault();
  const form = event.target;
  const button = form.querySelector("button");
  button.disabled = true;
  fill($("#register-status"), "Registering…");
  try {
    const body = { name: form.elements.namedItem("name").value.trim() };
    const code = form.elements.namedItem("registration_code").value.trim();
    if (code) body.registration_code = code;
    const you = await api(`${base}/register`, { method: "POST", body });
    view.credentials = you;
    fill($("#register-status"));
    signedIn();
  } catch (error) {
    fill($("#register-status"), el("span", { class: "error" }, error.message));
  } finally {
    button.disabled = false;
  }
}

async function signIn(event) {
  event.preventDefault();
  const form = event.target;
  fill($("#sign-in-status"), "Checking…");
  try {
    await api(`${base}/me/session`, {
      method: "POST",
      body: {
        player_id: form.elements.namedItem("player_id").value.trim(),
        player_secret: form.elements.namedItem("player_secret").value,
      },
    });
    form.reset();
    fill($("#sign-in-status"));
    signedIn();
  } catch (error) {
    fill($("#sign-in-status"), el("span", { class: "error" }, error.message));
  }
}

async function signOut() {
  try {
    await api(`${base}/me/session`, { method: "DELETE" });
  } catch (error) {
    problem(error.message);
    return;
  }
  window.location.reload();
}

// ---------------------------------------------------------------------- signed in

function clock(ms) {
  const seconds = Math.max(0, Math.round((ms - Date.now()) / 1000));
  const m = Math.floor(seconds / 60);
  return `${m}:${String(seconds % 60).padStart(2, "0")}`;
}

function renderCredentials() {
  const you = view.credentials;
  const box = $("#credentials");
  box.classList.toggle("hidden", !you);
  if (!you) return;
  fill(box,
    el("p", {}, el("strong", {}, `You are registered as ${you.name}.`),
      " This device will find your table by itself every round."),
    el("p", {}, "To continue on another device, open this tournament there, choose ",
      el("em", {}, "Registered already"), " and type:"),
    el("dl", {},
      el("dt", {}, "Tournament"), el("dd", {}, el("code", {}, id)),
      el("dt", {}, "Player id"), el("dd", {}, el("code", { id: "my-player-id" }, you.player_id)),
      el("dt", {}, "Secret"), el("dd", {}, el("code", { id: "my-secret" }, you.player_secret))),
    el("p", { class: "muted" }, "Write the secret down now: it is shown only this once."));
}

/** The between-rounds (or before, or after) screen: lines of what is and what comes. */
function statusLines(me, t) {
  const lines = [];
  const player = me.player || {};
  const results = me.results || [];
  const table = me.table;
  if (me.connection) lines.push(el("p", { class: "notice" }, me.connection));
  if (me.seat && me.seat.error) lines.push(el("p", { class: "error" }, me.seat.error));
  if (STATUS[player.status]) {
    lines.push(el("p", { class: "error", dataset: { status: player.status } },
      `You are ${STATUS[player.status]}${player.status_reason ? `: ${player.status_reason}` : ""}.`));
  }
  if (t.status === "registration") {
    lines.push(el("p", { dataset: { phase: "before" } }, t.next_round_at_ms
      ? `Round 1 starts in ${clock(t.next_round_at_ms)}.` : "Waiting for the tournament to start."));
    if (t.check_in_opens_ms) lines.push(checkInLine(player, t));
    return lines;
  }
  if (results.length) {
    lines.push(el("ul", { class: "results" }, results.map((r) => el("li", { class: "result", dataset: { round: r.round_no } },
      `Round ${r.round_no}: you finished `, el("strong", {}, ORDINAL[r.place] || `#${r.place}`),
      ` at ${r.table_id} with ${signed(r.score)} ${Math.abs(r.score) === 1 ? "point" : "points"}`,
      r.status === "dissolved" ? " (the match was dissolved)" : "", "."))));
  }
  if (t.status === "finished") {
    lines.push(el("p", { class: "final", dataset: { phase: "final" } }, el("strong", {}, "The tournament is over"),
      me.rank ? `: you are ${ORDINAL[me.rank] || `#${me.rank}`} with ${me.points} points.` : ".",
      " The final standings are below."));
    return lines;
  }
  if (t.status === "cancelled") {
    lines.push(el("p", { dataset: { phase: "final" } }, `The tournament was cancelled${t.status_reason ? `: ${t.status_reason}` : ""}.`));
    return lines;
  }
  if (t.status === "paused") lines.push(el("p", { class: "notice" }, "The tournament is paused: no new round is seated."));
  const current = table && table.round_no === t.current_round;
  const tableLive = current && ["waiting", "playing"].includes(table.status);
  if (tableLive) {
    lines.push(el("p", { dataset: { phase: "opening" } },
      `Round ${table.round_no}: your table is ${table.table_id}, seat ${WINDS[table.seat] || table.seat} — opening…`));
  } else if (me.waiting_tables > 0) {
    lines.push(el("p", { dataset: { phase: "waiting" } },
      `Waiting for ${me.waiting_tables} ${me.waiting_tables === 1 ? "table" : "tables"} to finish round ${t.current_round}.`));
  }
  if (!tableLive && t.current_round < t.rounds) {
    lines.push(el("p", { dataset: { phase: "next" } }, `Round ${t.current_round + 1} of ${t.rounds}: `,
      t.next_round_at_ms ? el("strong", { class: "countdown" }, `starts in ${clock(t.next_round_at_ms)}`)
        : me.waiting_tables > 0 ? "seated once every table has finished." : "being seated…"));
  }
  return lines;
}

/** A tournament with a check-in window: who has not checked in by the start does not play. */
function checkInLine(player, t) {
  if (player.checked_in) return el("p", { class: "checked-in" }, "You are checked in.");
  if (Date.now() < t.check_in_opens_ms) {
    return el("p", {}, `Check-in opens in ${clock(t.check_in_opens_ms)}: check in then, or you will not be seated.`);
  }
  return el("p", {},
    el("button", { id: "check-in", class: "primary", type: "button", onclick: checkIn }, "Check in"),
    t.check_in_closes_ms ? ` closes in ${clock(t.check_in_closes_ms)}` : "",
    el("span", { id: "check-in-status", class: "error" }, view.checkInError || ""));
}

async function checkIn() {
  try {
    await api(`${base}/me/check-in`, { method: "POST", body: {} });
    view.checkInError = "";
  } catch (error) {
    view.checkInError = ` ${error.message}`;
  }
  if (view.state) render(view.state);
}

function renderMe(me, t) {
  view.me = me;
  $("#join").classList.add("hidden");
  $("#you").classList.remove("hidden");
  const player = me.player || {};
  fill($("#you-title"), player.name ? `You: ${player.name}` : "You");
  fill($("#you-id"), `player id ${me.player_id}`);
  renderCredentials();
  const seat = me.seat;
  const playing = seat && seat.match_id && !seat.ended && !seat.error && view.tableEnded !== seat.session;
  if (playing && seat.session !== view.session) {
    view.session = seat.session;
    const seatBase = `${base}/me/seat`;
    $("#play").classList.remove("hidden");
    $("#play").scrollIntoView({ block: "start" });
    const which = `match=${encodeURIComponent(seat.match_id)}&session=${encodeURIComponent(seat.session)}`;
    startTable(`${seatBase}/events?${which}`, seatBase, {
      onEnd() {
        view.tableEnded = seat.session;
        if (view.state) render(view.state);
      },
    });
  }
  $("#play").classList.toggle("hidden", !playing);
  $("#you").dataset.phase = playing ? "playing" : t ? t.status : "";
  if (playing && me.table && me.table.match_id === seat.match_id) {
    setPlayedBy(Object.fromEntries(me.table.seats.filter((s) => s.played_by).map((s) => [s.seat, s.played_by])));
  }
  fill($("#you-status"), playing
    ? el("p", { dataset: { phase: "playing" } },
      me.table ? `Round ${me.table.round_no} of ${t ? t.rounds : "?"}: you are playing at ${me.table.table_id}.` : "You are playing.")
    : t ? statusLines(me, t) : []);
}

function followMe() {
  if (window.hebeiMe) window.hebeiMe.close();
  if (window.hebeiPublic) window.hebeiPublic.close();
  window.hebeiMe = new Feed(`${base}/me/events`, {
    onState: render,
    onStatus: setStatus,
    onEnd(reason) {
      if (/over/.test(reason)) fill($("#connection"), "over");
      else problem(reason);
    },
  }).start();
}

function signedIn() {
  $("#join").classList.add("hidden");
  followMe();
}

function followPublic() {
  window.hebeiPublic = new Feed(`${base}/events`, {
    onState: render,
    onStatus: setStatus,
    onEnd(reason) {
      fill($("#connection"), reason);
    },
  }).start();
}

async function open() {
  mountTable($("#table-root"));
  $("#register").addEventListener("submit", register);
  $("#sign-in").addEventListener("submit", signIn);
  $("#sign-out").addEventListener("click", signOut);
  setInterval(() => {
    if (view.state && view.me && view.state.tournament) renderMe(view.me, view.state.tournament);
  }, 1000);
  try {
    await api(`${base}/me`);
    followMe();
    return;
  } catch (error) {
    if (error.status !== 401) problem(error.status === 403 ? `${error.message} (sign in again)` : error.message);
  }
  try {
    await api(base);
  } catch (error) {
    problem(error.message || `cannot open tournament ${id}`);
    return;
  }
  $("#join").classList.remove("hidden");
  followPublic();
}

if (!id) {
  problem("No tournament given: open one from the lobby.");
} else {
  open();
}

// The organiser's exports (anonymous: a tournament that hides results exports what is public).
fill($("#exports"), [
  ["results.csv", "Results (CSV)"], ["results.json", "Results (JSON)"],
  ["seating.csv", "Every round's seating (CSV)"], ["seating.json", "Every round's seating (JSON)"],
].map(([name, label]) => el("a", { href: `${base}/export/${name}`, download: "" }, label))
  .concat([el("a", { href: `/tournaments/${encodeURIComponent(id)}/print/results` }, "Print the results")]));
