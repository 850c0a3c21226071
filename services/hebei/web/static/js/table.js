// The table page: ?seat=KEY plays a quick-play seat, ?match=ID watches a table (public
// information only). A tournament's person plays on the tournament page instead (by cookie).
import { $, el, fill, params } from "./common.js";
import { mountTable, startTable } from "./tableview.js";

const query = params();
const seatKey = query.get("seat");
const matchId = query.get("match");

function status(text) {
  const badge = $("#connection");
  fill(badge, text);
  badge.className = `badge ${text === "live" ? "ok" : text === "ended" ? "" : "warn"}`;
}

/** A link that cannot work (an unknown or expired seat, a match that does not exist): the
 * gateway's words and the way back, never an endless "Waiting". */
function dead(message) {
  status("ended");
  fill($("#connection"), "link not working");
  const problem = $("#problem");
  fill(problem, el("strong", {}, "This table cannot be shown: "), message, " ",
    el("a", { href: "/", class: "lobby" }, "Back to the lobby"));
  problem.classList.remove("hidden");
  $("#table-root").classList.add("hidden");
}

const handlers = { onStatus: status, onEnd: () => fill($("#connection"), "ended"), onFail: dead };
mountTable($("#table-root"));
if (seatKey) {
  const base = `/api/seats/${encodeURIComponent(seatKey)}`;
  startTable(`${base}/events`, base, handlers);
} else if (matchId) {
  startTable(`/api/tables/${encodeURIComponent(matchId)}/events`, null, handlers);
} else {
  dead("no table given: open one from the lobby.");
}
