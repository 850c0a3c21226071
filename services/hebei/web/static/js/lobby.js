// The lobby: play against bots (quick play), live tables, tournaments, a tournament seat.
import { $, api, el, fill, seatLabel } from "./common.js";

const field = (form, name) => form.elements.namedItem(name).value;
// The level chosen first: the expert's default is 3 (README, "Bots: ... the expert's strength").
const PREFERRED_LEVEL = { expert: 3 };

async function loadBots() {
  const policy = $("#policy");
  const level = $("#level");
  let bots;
  try {
    bots = await api("/api/bots");
  } catch (error) {
    fill($("#play-status"), error.message);
    return;
  }
  fill(policy, bots.policies.map((p) => el("option", { value: p.name, selected: p.name === bots.default.policy }, p.name)));
  const levels = () => {
    const chosen = bots.policies.find((p) => p.name === policy.value);
    const preferred = PREFERRED_LEVEL[chosen.name] ?? bots.default.level;
    fill(level, chosen.levels.map((l) => el("option", { value: l, selected: l === preferred }, String(l))));
  };
  policy.addEventListener("change", levels);
  levels();
}

async function quickPlay(event) {
  event.preventDefault();
  const form = event.target;
  const button = $("#play");
  button.disabled = true;
  fill($("#play-status"), "Finding a table…");
  try {
    const seat = await api("/api/quickplay", {
      method: "POST",
      body: {
        name: field(form, "name").trim(),
        policy: field(form, "policy"),
        level: Number(field(form, "level")),
        hands: Number(field(form, "hands")),
      },
    });
    window.location.href = seat.url;
  } catch (error) {
    fill($("#play-status"), el("span", { class: "error" }, error.message));
    button.disabled = false;
  }
}

async function loadTables() {
  try {
    const data = await api("/api/tables?status=live");
    const rows = data.tables.map((t) => el("tr", {
      class: "clickable", dataset: { match: t.match_id },
      onclick: () => { window.location.href = `/table.html?match=${encodeURIComponent(t.match_id)}`; },
    },
    el("td", {}, t.table_id || t.match_id),
    el("td", { class: "hide-narrow" }, t.tournament_id ? `${t.tournament_id} r${t.round_no}` : "quick play"),
    el("td", {}, t.hand_no ? `${t.hand_no}${t.hands ? `/${t.hands}` : ""}` : "waiting"),
    el("td", {}, t.seats.map(seatLabel).join(", ")),
    el("td", {}, el("a", { href: `/table.html?match=${encodeURIComponent(t.match_id)}` }, "watch"))));
    fill($("#tables tbody"), rows);
    fill($("#tables-status"), rows.length ? "" : "No table is playing right now.");
  } catch (error) {
    fill($("#tables-status"), el("span", { class: "error" }, error.message));
  }
}

async function loadTournaments() {
  try {
    const data = await api("/api/tournaments");
    fill($("#tournaments tbody"), data.tournaments.map((t) => el("tr", {
      class: "clickable", dataset: { tournament: t.tournament_id },
      onclick: () => { window.location.href = `/tournament.html?id=${encodeURIComponent(t.tournament_id)}`; },
    },
    el("td", {}, el("a", { href: `/tournament.html?id=${encodeURIComponent(t.tournament_id)}` }, t.name)),
    el("td", {}, t.status), el("td", {}, `${t.current_round}/${t.rounds}`),
    el("td", { class: "num" }, String(t.players)))));
  } catch (error) {
    fill($("#tournaments tbody"), el("tr", {}, el("td", { class: "error", colspan: 4 }, error.message)));
  }
}

async function tournamentSeat(event) {
  event.preventDefault();
  const form = event.target;
  const tournament = field(form, "tournament_id").trim();
  const base = `/api/tournaments/${encodeURIComponent(tournament)}`;
  fill($("#seat-status"), "Checking…");
  try {
    // Sets this device's cookie for the tournament: its page then follows you every round.
    await api(`${base}/me/session`, {
      method: "POST",
      body: { player_id: field(form, "player_id").trim(), player_secret: field(form, "player_secret") },
    });
    window.location.href = `/tournament.html?id=${encodeURIComponent(tournament)}`;
  } catch (error) {
    fill($("#seat-status"), el("span", { class: "error" }, error.message));
  }
}

$("#quickplay").addEventListener("submit", quickPlay);
$("#tournament-seat").addEventListener("submit", tournamentSeat);
$("#open-tournament").addEventListener("submit", (event) => {
  event.preventDefault();
  window.location.href = `/tournament.html?id=${encodeURIComponent(field(event.target, "tournament").trim())}`;
});
loadBots();
loadTables();
loadTournaments();
setInterval(loadTables, 3000);
setInterval(loadTournaments, 5000);
