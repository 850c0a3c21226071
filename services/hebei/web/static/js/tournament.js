// A tournament: summary, standings with tie-breaks, every round's seating with its quality,
// and the live tables to click into. One feed keeps it current.
import { $, el, fill, params } from "./common.js";
import { Feed } from "./feed.js";

const id = params().get("id");
const WINDS = ["东 East", "南 South", "西 West", "北 North"];

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
  fill(body, standings.ranking.map((row) => el("tr", { class: row.filler || row.withdrawn ? "muted" : "" },
    el("td", { class: "num" }, row.rank ? String(row.rank) : "–"),
    el("td", {}, row.name, row.filler ? " (filler)" : row.withdrawn ? " (left)" : ""),
    el("td", { class: "num" }, String(row.points)),
    el("td", { class: "num" }, String(row.hands_won)),
    el("td", { class: "num hide-narrow" }, String(row.dealt_in)),
    el("td", { class: "num hide-narrow" }, String(row.best_match)),
    el("td", { class: "num hide-narrow" }, String(row.penalty_points)),
    el("td", { class: "num hide-narrow" }, String(row.placement_points)),
    el("td", {}, row.decided_by || ""))));
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
    ` · ${q.seconds} s${q.deadline_hit ? " (deadline)" : ""}`;
}

function renderRounds(rounds) {
  const blocks = [...rounds].reverse().map((round) => el("div", { class: "round", dataset: { round: round.round_no } },
    el("h3", {}, `Round ${round.round_no} `, el("span", { class: "badge" }, round.finished ? "finished" : "playing")),
    el("p", { class: "muted quality" }, quality(round.quality)),
    el("table", { class: "list" },
      el("thead", {}, el("tr", {}, el("th", {}, "Table"), WINDS.map((w) => el("th", { class: "hide-narrow" }, w)),
        el("th", { class: "num" }, "Hands"), el("th", {}, "Status"))),
      el("tbody", {}, round.tables.map((t) => {
        const live = t.status === "playing" || t.status === "waiting";
        const open = () => { window.location.href = `/table.html?match=${encodeURIComponent(t.match_id)}`; };
        return el("tr", { class: "clickable", dataset: { match: t.match_id, live: live ? "1" : "0" }, onclick: open },
          el("td", {}, el("a", { href: `/table.html?match=${encodeURIComponent(t.match_id)}` }, t.table_id || t.match_id),
            el("div", { class: "muted" }, t.seats.map((s) => s.name).join(", "))),
          t.seats.map((s) => el("td", { class: "hide-narrow" }, s.name)),
          el("td", { class: "num" }, String(t.hands_played)),
          el("td", {}, live ? el("span", { class: "badge ok" }, "live") : t.status,
            t.dissolved_reason ? ` (${t.dissolved_reason})` : ""));
      })))));
  fill($("#rounds"), blocks.length ? blocks : el("p", { class: "muted" }, "No round seated yet."));
}

function render(state) {
  if (state.tournament) renderSummary(state.tournament);
  renderStandings(state.standings, state.tournament);
  renderRounds(state.rounds || []);
}

if (!id) {
  $("#problem").textContent = "No tournament given: open one from the lobby.";
  $("#problem").classList.remove("hidden");
} else {
  window.hebeiFeed = new Feed(`/api/tournaments/${encodeURIComponent(id)}/events`, {
    onState: render,
    onStatus(text) {
      const badge = $("#connection");
      fill(badge, text);
      badge.className = `badge ${text === "live" ? "ok" : text === "ended" ? "" : "warn"}`;
    },
    onEnd(reason) {
      fill($("#connection"), reason);
    },
  }).start();
  fetch(`/api/tournaments/${encodeURIComponent(id)}`).then(async (response) => {
    if (!response.ok) {
      const data = await response.json().catch(() => ({}));
      $("#problem").textContent = data.error || `cannot open tournament ${id}`;
      $("#problem").classList.remove("hidden");
      window.hebeiFeed.close();
    }
  });
}
