// The table page: ?seat=KEY plays a quick-play seat, ?match=ID watches a table (public
// information only). A tournament's person plays on the tournament page instead (by cookie).
import { $, fill, params } from "./common.js";
import { mountTable, startTable } from "./tableview.js";

const query = params();
const seatKey = query.get("seat");
const matchId = query.get("match");

function status(text) {
  const badge = $("#connection");
  fill(badge, text);
  badge.className = `badge ${text === "live" ? "ok" : text === "ended" ? "" : "warn"}`;
}

mountTable($("#table-root"));
if (seatKey) {
  const base = `/api/seats/${encodeURIComponent(seatKey)}`;
  startTable(`${base}/events`, base, { onStatus: status, onEnd: () => fill($("#connection"), "ended") });
} else if (matchId) {
  startTable(`/api/tables/${encodeURIComponent(matchId)}/events`, null,
    { onStatus: status, onEnd: () => fill($("#connection"), "ended") });
} else {
  $("#problem").textContent = "No table given: open a table from the lobby.";
  $("#problem").classList.remove("hidden");
}
