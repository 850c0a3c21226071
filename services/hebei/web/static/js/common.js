// Small helpers shared by every page: DOM building, JSON calls with one-line errors, tiles.

/** Build an element: el("td", {class: "num"}, "12", child...). Strings become text nodes. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replace the children of `node`. */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** A JSON call; throws Error(message) with the gateway's one-line message on failure. */
export async function api(path, { method = "GET", body, token, actor } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  if (actor) headers["X-Hebei-Actor"] = actor;
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new Error("cannot reach the gateway: is it running?");
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    const message = (data && data.error) || `${response.status} ${response.statusText}`;
    const failure = new Error(message);
    failure.status = response.status;
    failure.code = (data && data.code) || "";
    throw failure;
  }
  return data;
}

export const SUITS = { m: "万", p: "筒", s: "条" };
export const HONORS = ["东", "南", "西", "北", "白", "发", "中"];
export const WINDS = { "1z": "东", "2z": "南", "3z": "西", "4z": "北" };

/** The label of a tile name: "5万", "东"; hidden: "?". */
export function tileLabel(name) {
  if (!name) return "?";
  const rank = Number(name[0]);
  const suit = name[1];
  return suit === "z" ? HONORS[rank - 1] : `${rank}${SUITS[suit]}`;
}

const NUMERALS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];

/** A tile's own name, as a person reads it: "六条", "东"; hidden: "a hidden tile". */
export function tileName(name) {
  if (!name) return "a hidden tile";
  const rank = Number(name[0]);
  const suit = name[1];
  return suit === "z" ? HONORS[rank - 1] : `${NUMERALS[rank - 1]}${SUITS[suit]}`;
}

/** Text for people: every tile notation in it ("6s", "1z") written as the tile's name. */
export function tileWords(text) {
  return String(text ?? "").replace(/\b([1-9])([mps])\b|\b([1-7])z\b/g,
    (match) => tileName(match));
}

/** One tile as an element; `name` null draws its back. */
export function tile(name, size = "") {
  const classes = ["tile"];
  if (size) classes.push(size);
  if (!name) {
    classes.push("back");
    return el("span", { class: classes.join(" "), title: "hidden", dataset: { tile: "" } });
  }
  const rank = Number(name[0]);
  const suit = name[1];
  classes.push(`s-${suit}`);
  if (suit === "z") {
    classes.push(`z${rank}`);
    return el("span", { class: classes.join(" "), title: tileName(name), dataset: { tile: name } },
      el("b", {}, HONORS[rank - 1]));
  }
  return el("span", { class: classes.join(" "), title: `${tileName(name)} (${name})`, dataset: { tile: name } },
    el("b", {}, String(rank)), el("i", {}, SUITS[suit]));
}

export function params() {
  return new URLSearchParams(window.location.search);
}

export function signed(value) {
  return value > 0 ? `+${value}` : String(value);
}

export function ago(ms) {
  if (!ms) return "";
  const seconds = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return seconds < 60 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

/** A seat as the pages list it: a bot in a person's seat is the bot ("filler for Lin"). */
export function seatLabel(seat) {
  return seat.played_by || seat.name;
}
