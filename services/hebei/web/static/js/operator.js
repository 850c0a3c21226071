// The operators' view: services' health, tables per engine, stalled tables (dissolve),
// tournaments (pause, resume), the bot fleet's load when the gateway can see it.
import { $, api, el, fill, seatLabel } from "./common.js";

const KEY = "hebei.operator";
let timer = null;
// Whether the status line shows the periodic refresh's own failure: the next good refresh
// clears it, but never what an operator's action said (it stays until the next action).
let refreshFailed = false;

function credentials() {
  try {
    return JSON.parse(sessionStorage.getItem(KEY) || "null");
  } catch (error) {
    return null;
  }
}

function say(text, bad = false) {
  fill($("#status"), bad ? el("span", { class: "error" }, text) : text);
}

async function call(path, options = {}) {
  const creds = credentials();
  // A header carries ASCII only: the name goes percent-encoded (UTF-8), as the CLI's
  // hebei.common.auth.actor_metadata sends it, and the gateway decodes it (评估员 works).
  const actor = creds && creds.actor ? encodeURIComponent(creds.actor) : undefined;
  return api(path, { ...options, token: creds && creds.token, actor });
}

function health(status) {
  const kind = status === "serving" ? "ok" : status === "not_serving" ? "warn" : "bad";
  return el("span", { class: `badge ${kind}` }, status);
}

async function dissolve(table) {
  const reason = window.prompt(`Dissolve ${table.match_id}? Reason:`, "stalled");
  if (!reason) return;
  try {
    await call(`/api/operator/tables/${encodeURIComponent(table.match_id)}/dissolve`, {
      method: "POST", body: { reason, tournament_id: table.tournament_id || "" },
    });
    say(`Dissolved ${table.match_id}.`);
    refresh();
  } catch (error) {
    say(error.message, true);
  }
}

async function pauseResume(tournament, action) {
  try {
    await call(`/api/operator/tournaments/${encodeURIComponent(tournament.tournament_id)}/${action}`, {
      method: "POST", body: action === "pause" ? { reason: "paused by the operator" } : {},
    });
    say(`${action === "pause" ? "Paused" : "Resumed"} ${tournament.name}.`);
    refresh();
  } catch (error) {
    say(error.message, true);
  }
}

function renderMetrics(metrics) {
  if (!metrics) {
    return el("p", { class: "muted" },
      "No metrics endpoints configured for this gateway (HEBEI_WEB_METRICS): the bot fleet's backlog is not visible through the contracts.");
  }
  return Object.entries(metrics).map(([name, series]) => el("div", {},
    el("h3", {}, name),
    series.error ? el("p", { class: "error" }, series.error)
      : el("table", { class: "list" }, el("tbody", {}, Object.entries(series).map(([key, value]) =>
        el("tr", {}, el("td", {}, key), el("td", { class: "num" }, String(value))))))));
}

async function refresh() {
  let data;
  try {
    data = await call("/api/operator/overview");
  } catch (error) {
    refreshFailed = true;
    say(error.message, true);
    if (error.status === 401) $("#views").classList.add("hidden");
    return;
  }
  $("#views").classList.remove("hidden");
  if (refreshFailed) {
    refreshFailed = false;
    say("");
  }
  fill($("#services tbody"), data.services.map((s) => el("tr", { dataset: { service: s.service } },
    el("td", {}, s.service), el("td", {}, s.address), el("td", {}, health(s.status)),
    el("td", { class: "num" }, String(s.ms)))));
  fill($("#engines"), data.engines.map((e) => el("p", {}, el("strong", {}, e.address), " · ",
    Object.entries(e.counts).map(([k, v]) => `${k} ${v}`).join(" · ") || "no tables",
    e.error ? el("span", { class: "error" }, ` ${e.error}`) : "")));
  fill($("#stall"), String(data.stall_seconds));
  fill($("#tables tbody"), data.tables.map((t) => el("tr", {
    class: t.stalled ? "stalled" : "", dataset: { match: t.match_id, stalled: t.stalled ? "1" : "0" },
  },
  el("td", {}, el("a", { href: `/table.html?match=${encodeURIComponent(t.match_id)}` }, t.match_id),
    t.paused ? el("span", { class: "badge warn" }, " paused") : ""),
  el("td", { class: "hide-narrow" }, t.tournament_id || "quick play"),
  el("td", {}, `${t.hand_no}${t.hands ? `/${t.hands}` : ""}`),
  el("td", { class: "num" }, String(t.idle_seconds)),
  el("td", {}, t.seats.map((s) => `${seatLabel(s)}${s.auto ? " (auto)" : ""}${s.connected ? "" : " (offline)"}`).join(", ")),
  el("td", {}, el("button", { type: "button", class: t.stalled ? "danger" : "", onclick: () => dissolve(t) }, "Dissolve")))));
  fill($("#metrics"), renderMetrics(data.metrics));
  fill($("#gateway"), JSON.stringify(data.gateway, null, 2));
  try {
    const list = await api("/api/tournaments");
    fill($("#tournaments tbody"), list.tournaments.map((t) => el("tr", { dataset: { tournament: t.tournament_id } },
      el("td", {}, el("a", { href: `/tournament.html?id=${encodeURIComponent(t.tournament_id)}` }, t.name)),
      el("td", {}, t.status), el("td", {}, `${t.current_round}/${t.rounds}`),
      el("td", {},
        t.status === "running" ? el("button", { type: "button", onclick: () => pauseResume(t, "pause") }, "Pause") : "",
        t.status === "paused" ? el("button", { type: "button", onclick: () => pauseResume(t, "resume") }, "Resume") : ""))));
  } catch (error) {
    refreshFailed = true;
    say(error.message, true);
  }
}

function begin() {
  if (timer) clearInterval(timer);
  refresh();
  timer = setInterval(refresh, 3000);
}

$("#token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const form = event.target;
  const token = form.elements.namedItem("token").value.trim();
  const actor = form.elements.namedItem("actor").value.trim() || "operator";
  sessionStorage.setItem(KEY, JSON.stringify({ token, actor }));
  form.elements.namedItem("token").value = "";
  begin();
});
$("#forget").addEventListener("click", () => {
  sessionStorage.removeItem(KEY);
  if (timer) clearInterval(timer);
  $("#views").classList.add("hidden");
  say("Token forgotten.");
});
if (credentials()) begin();
