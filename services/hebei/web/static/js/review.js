// The review page: ?match=ID&seat=N, a finished match's seat against the expert (the bot
// service's Review through GET /api/tables/ID/review): agreement rate and the differing rows.
import { $, api, el, fill, params, tile, tileWords } from "./common.js";

const page = { review: null };
window.hebeiReview = page;

function seatName(match, seat) {
  const found = match && match.seats ? match.seats.find((s) => s.seat === seat) : null;
  return found && found.name ? `${found.name} (seat ${seat})` : `seat ${seat}`;
}

function show(review, match) {
  const rate = `${Math.round(review.agreement * 100)}%`;
  fill($("#summary"),
    el("span", { class: "rate", dataset: { agreement: String(review.agreement) } }, rate), " agreement: ",
    `${seatName(match, review.seat)} played the expert's choice (level ${review.level}) at `,
    `${review.agreed} of ${review.decisions} decisions over ${review.hands} hand${review.hands === 1 ? "" : "s"}, `,
    `giving up ${review.total_cost.toFixed(1)} points by its estimate`,
    review.auto_played ? ` · ${review.auto_played} auto-played (托管) decisions not counted` : "",
    review.truncated ? " · the costliest differences shown" : "");
  $("#summary").classList.remove("hidden");
  fill($("#rows tbody"), review.differences.map((d) => el("tr", {},
    el("td", { class: "num" }, String(d.hand)),
    el("td", { class: "num" }, String(d.turn)),
    el("td", {}, d.concealed.map((name) => tile(name, "small")),
      d.claimed ? el("span", {}, " + ", tile(d.claimed, "small"), "?") : null),
    el("td", {}, tileWords(d.played)),
    el("td", {}, el("strong", {}, tileWords(d.expert))),
    el("td", {}, tileWords(d.reason)),
    el("td", { class: "num" }, d.cost.toFixed(2)))));
  $("#rows").classList.toggle("hidden", review.differences.length === 0);
  fill($("#status"), review.differences.length ? "" : "The seat played the expert's choice at every decision.");
}

async function load(matchId, seat) {
  $("#table-link").href = `/table.html?match=${encodeURIComponent(matchId)}`;
  fill($("#title"), matchId);
  $("#summary").classList.add("hidden");
  $("#rows").classList.add("hidden");
  fill($("#status"), "The bot service is replaying the match…");
  $("#review").disabled = true;
  let match = null;
  try {
    match = await api(`/api/tables/${encodeURIComponent(matchId)}`);
  } catch (error) {
    match = null; // the review says what is wrong
  }
  try {
    page.review = await api(`/api/tables/${encodeURIComponent(matchId)}/review?seat=${seat}`);
    show(page.review, match);
  } catch (error) {
    page.review = null;
    fill($("#status"), el("span", { class: "error" }, error.message));
  } finally {
    $("#review").disabled = false;
  }
}

const query = params();
const form = $("#choose");
form.elements.namedItem("match").value = query.get("match") || "";
const seat = query.get("seat");
if (["0", "1", "2", "3"].includes(seat)) $("#seat").value = seat;
form.addEventListener("submit", (event) => {
  event.preventDefault();
  const matchId = form.elements.namedItem("match").value.trim();
  const chosen = $("#seat").value;
  history.replaceState(null, "", `/review.html?match=${encodeURIComponent(matchId)}&seat=${chosen}`);
  load(matchId, chosen);
});
if (query.get("match")) load(query.get("match"), $("#seat").value);
