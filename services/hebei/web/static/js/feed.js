// A live feed over Server-Sent Events: a snapshot, then ordered deltas (patches) applied to
// the state; each has an id, and a reconnection resumes after the last one applied.
//
// The browser's EventSource reconnects by itself with the Last-Event-ID header (the gateway
// ends each response after a while on purpose). If the stream fails for good (an HTTP error)
// this opens it again with ?last_event_id= after a short, growing wait.

/** Apply the gateway's patch operations ["set"|"push"|"del", path, value] to `state`. */
export function applyPatch(state, patch) {
  for (const [op, path, value] of patch) {
    if (path.length === 0) {
      state = structuredClone(value);
      continue;
    }
    let target = state;
    for (const key of path.slice(0, -1)) target = target[key];
    const last = path[path.length - 1];
    if (op === "set") target[last] = structuredClone(value);
    else if (op === "push") target[last].push(...structuredClone(value));
    else if (op === "del") delete target[last];
  }
  return state;
}

export class Feed {
  /**
   * @param {string} url the SSE route
   * @param {{onState?: Function, onDelta?: Function, onEnd?: Function, onStatus?: Function}} handlers
   */
  constructor(url, handlers = {}) {
    this.url = url;
    this.handlers = handlers;
    this.state = null;
    this.lastId = null;
    this.source = null;
    this.ended = false;
    this.failures = 0;
    this.applied = []; // every seq applied, in order (tests check there is no gap)
    this.snapshots = 0;
    this.opens = 0; // responses opened (the browser resumes after each one ends)
    this.openedAt = 0;
  }

  start(resumeFrom = null) {
    let url = this.url;
    if (resumeFrom !== null && resumeFrom !== undefined) {
      url += (url.includes("?") ? "&" : "?") + `last_event_id=${resumeFrom}`;
    }
    const source = new EventSource(url);
    this.source = source;
    source.addEventListener("open", () => {
      this.failures = 0;
      this.opens += 1;
      this.openedAt = Date.now();
      this.status("live");
    });
    source.addEventListener("snapshot", (message) => this.onSnapshot(message));
    source.addEventListener("delta", (message) => this.onDelta(message));
    source.addEventListener("end", (message) => this.onEnd(message));
    source.addEventListener("error", () => this.onError(source));
    return this;
  }

  status(text) {
    if (this.handlers.onStatus) this.handlers.onStatus(text);
  }

  onSnapshot(message) {
    const data = JSON.parse(message.data);
    this.state = data.state;
    this.lastId = data.seq;
    this.snapshots += 1;
    this.applied.push(["snapshot", data.seq]);
    if (this.handlers.onState) this.handlers.onState(this.state, null);
  }

  onDelta(message) {
    const delta = JSON.parse(message.data);
    if (this.state === null) return; // cannot happen: a snapshot always comes first
    if (this.lastId !== null && delta.seq <= this.lastId) return; // already applied
    this.state = applyPatch(this.state, delta.patch || []);
    this.lastId = delta.seq;
    this.applied.push(["delta", delta.seq]);
    if (this.handlers.onDelta) this.handlers.onDelta(delta, this.state);
    if (this.handlers.onState) this.handlers.onState(this.state, delta);
  }

  onEnd(message) {
    this.ended = true;
    this.close();
    const data = JSON.parse(message.data || "{}");
    this.status("ended");
    if (this.handlers.onEnd) this.handlers.onEnd(data.reason || "ended");
  }

  onError(source) {
    if (this.ended || source !== this.source) return;
    if (source.readyState === EventSource.CONNECTING) {
      this.status("reconnecting");
      return; // the browser resumes with Last-Event-ID by itself
    }
    // Closed for good (an HTTP error): ask the route why. A refusal that will not change (an
    // unknown or expired link: 4xx but 408 and 429) ends the feed with the gateway's words;
    // anything else is opened again after a growing wait.
    this.failures += 1;
    this.status("disconnected");
    // Without an onFail handler (the tournament page reopens its seat's feed by itself), retry.
    (this.handlers.onFail ? this.why() : Promise.resolve(null)).then((refusal) => {
      if (this.ended || this.source !== source) return;
      if (refusal) {
        this.ended = true;
        this.status("ended");
        this.handlers.onFail(refusal.message, refusal.status);
        return;
      }
      const wait = Math.min(10000, 500 * 2 ** Math.min(this.failures, 5));
      setTimeout(() => {
        if (!this.ended && this.source === source) this.start(this.lastId);
      }, wait);
    });
  }

  /** The route's answer when it refuses for good: {status, message}; null otherwise. */
  async why() {
    const stop = new AbortController();
    try {
      const response = await fetch(this.url, { headers: { Accept: "application/json" }, signal: stop.signal });
      const final = response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status);
      if (!final) return null;
      let message = `${response.status} ${response.statusText}`;
      try {
        const data = await response.json();
        if (data && data.error) message = data.error;
      } catch (error) {
        // not JSON: the status line says it
      }
      return { status: response.status, message };
    } catch (error) {
      return null; // the gateway is unreachable: try again
    } finally {
      stop.abort(); // an open stream (the route answers): not read here
    }
  }

  /** Drop the connection and resume after the last applied id (what a network drop does). */
  drop() {
    if (this.source) this.source.close();
    this.start(this.lastId);
  }

  close() {
    if (this.source) this.source.close();
  }
}
