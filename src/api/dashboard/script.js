// The dashboard: reads only the public JSON API (and the clock control API when the server
// offers it), so it shows nothing the API hides from an anonymous reader. Every text from the
// server is put on the page as text (textContent), never as markup.
"use strict";

const API = "/api/2.3";
const FIELDS = "tenderID,title,status,owner,mode,next_check";
const STATUSES = ["active.enquiries", "active.tendering", "active.auction", "active.qualification",
  "active.awarded", "complete", "unsuccessful", "cancelled"];
const REFRESH_MS = 2000;

const state = {
  clock: null,        // the server's: {now: ms, text, frozen, testing, movable}
  clockApi: true,     // whether the server answers /testing/clock (else its index tells the time)
  viewer: null,       // the broker signed in here: {key, shown: its name}, or null
  viewerClock: null,  // its clock, as /testing/clock shows it to it
  tenderClock: null,  // the clock the shown tender or contract lives on (a test clock, or its owner's)
  testClocks: null,   // the signed-in broker's test clocks, or null where the server offers none
  clockOf: new Map(), // tender id -> the clock it lives on, for good: {test: id} or {broker: name}
  clockNows: new Map(), // clock (as clockKey names it) -> its now in ms, read this refresh
  clocksKey: "",      // what the test clocks' table was last drawn from
  rows: new Map(),    // id -> listing row, newest change first
  olderOffset: null,  // next_page.offset of the last page loaded
  tender: null,       // the tender shown, as the API represents it
  contract: null,     // the contract under management shown, or null
  managed: new Map(), // id -> the shown tender's contract as contract management holds it
  listLoaded: false,  // whether the listing has answered once
  shownKey: "",       // what the tender page was last drawn from
  limits: null,       // what each broker may take of the server, and what the viewer holds
  limitsAt: 0,        // when they were last read (ms)
  requests: null,     // the signed-in broker's request log page, as /testing/requests answers it
  exchange: null,     // the one exchange shown
  report: null,       // the signed-in broker's client report
};

/** Marks the page's own requests, which the server's request log leaves out. */
const OWN = { "X-Tender-Dashboard": "1" };

const $ = (id) => document.getElementById(id);

/** An element with attributes and children; strings become text nodes. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "style") el.setAttribute("style", v);
    else if (k === "href") el.setAttribute("href", safeHref(v));
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Only web addresses and the server's own paths are links; anything else goes nowhere. */
function safeHref(url) {
  const s = String(url);
  return /^(https?:\/\/|\/|#)/i.test(s) ? s : "#";
}

/** Milliseconds of an API timestamp (microseconds are cut to what Date reads). */
function ms(text) {
  if (typeof text !== "string") return NaN;
  return Date.parse(text.replace(/(\.\d{3})\d+/, "$1"));
}

/** A timestamp as the server wrote it, shortened: `2026-11-23 10:00`. */
function shortTime(text) {
  return typeof text === "string" ? text.slice(0, 16).replace("T", " ") : "";
}

/** The offset a timestamp is written in: `+02:00`, or `UTC`. */
function offsetOf(text) {
  const m = /([+-]\d\d:\d\d)$/.exec(text || "");
  return m ? m[1] : "UTC";
}

/** A moment in the offset `sample` (a server timestamp) carries, shortened like shortTime. */
function inZoneOf(sample, when) {
  const m = /([+-])(\d\d):(\d\d)$/.exec(sample || "");
  const offset = m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  return shortTime(new Date(when + offset * 60000).toISOString()) + (m ? " " + m[0] : " UTC");
}

function relative(when, from) {
  if (!state.clock || Number.isNaN(when)) return "";
  let d = Math.round((when - (from === undefined ? state.clock.now : from)) / 60000);
  const past = d < 0;
  d = Math.abs(d);
  const days = Math.floor(d / 1440), hours = Math.floor((d % 1440) / 60), mins = d % 60;
  const parts = [];
  if (days) parts.push(days + " d");
  if (hours) parts.push(hours + " h");
  if (!days && (mins || !parts.length)) parts.push(mins + " min");
  return past ? parts.join(" ") + " ago" : "in " + parts.join(" ");
}

/**
 * A broker's HTTP Basic credentials as headers: the signed-in one's by default, none if none.
 * The user name is the broker's key; the server reads no password.
 */
function authHeaders(viewer) {
  const v = viewer === undefined ? state.viewer : viewer;
  if (!v) return {};
  let raw = "";
  new TextEncoder().encode(v.key + ":").forEach((b) => { raw += String.fromCharCode(b); });
  return { Authorization: "Basic " + btoa(raw) };
}

async function getJson(path, headers) {
  const res = await fetch(path, { headers: { Accept: "application/json", ...OWN, ...(headers || {}) }, cache: "no-store" });
  const body = await res.json().catch(() => null);
  return { status: res.status, body, date: res.headers.get("Date") };
}

function showProblem(text) {
  const p = $("problem");
  p.textContent = text || "";
  p.hidden = !text;
}

// ---- the clock --------------------------------------------------------------------------

async function loadClock() {
  const { status, body } = state.clockApi ? await getJson("/testing/clock") : { status: 404 };
  if (status === 200 && body && body.data) {
    state.clock = { now: ms(body.data.now), text: body.data.now, frozen: body.data.frozen, testing: true, movable: body.data.movable !== false };
  } else {
    // Without --testing or --sandbox the clock is the server's own, which its index shows in
    // the server's zone (the Date header would say it in GMT).
    if (status === 404) state.clockApi = false;
    const index = await getJson("/");
    const text = index.status === 200 && index.body && index.body.data && index.body.data.now;
    const now = text ? ms(text) : index.date ? Date.parse(index.date) : Date.now();
    state.clock = { now, text: text || new Date(now).toISOString(), frozen: false, testing: false, movable: false };
  }
  // As with a record's clock, the viewer's stays until the new read is in.
  if (state.viewer && state.clock.testing) {
    const mine = await getJson("/testing/clock", authHeaders());
    state.viewerClock = mine.status === 200 && mine.body ? mine.body.data : null;
    // The server knows no broker of this key (any more): the viewer is anonymous again.
    if (mine.status === 403) forgetViewer(UNKNOWN_KEY);
  } else {
    state.viewerClock = null;
  }
  drawClock();
}

/** Said when no broker of the server has the key given (the key is not echoed back). */
const UNKNOWN_KEY = "No broker of this server has that key: not signed in.";

function showSignInProblem(text) {
  const p = $("sign-in-problem");
  p.textContent = text || "";
  p.hidden = !text;
}

/**
 * Signs in with a broker's `key` (its Basic user name, as in the brokers file) once the server
 * knows it: the clock API refuses a key it does not (403). The page then shows the broker by
 * the name the server knows it by (its `owner`), which may differ from its key.
 */
async function signIn(key) {
  const viewer = { key };
  const { status, body } = await getJson("/testing/clock", authHeaders(viewer));
  $("viewer-key").value = "";
  if (status === 403) {
    showSignInProblem(UNKNOWN_KEY);
    return;
  }
  if (status !== 200 || !body) {
    const e = body && body.errors && body.errors[0];
    showSignInProblem("Not signed in: " + (e ? e.description : "the server answered " + status));
    return;
  }
  viewer.shown = (body.data && body.data.broker) || key;
  state.viewer = viewer;
  sessionStorage.setItem("viewer", JSON.stringify(viewer));
  state.limitsAt = 0;
  showSignInProblem("");
  state.shownKey = "";
  await refresh();
}

function forgetViewer(problem) {
  state.viewer = null;
  state.limitsAt = 0;
  state.viewerClock = null;
  sessionStorage.removeItem("viewer");
  showSignInProblem(problem);
  state.shownKey = "";
}

function viewerName() {
  return state.viewer ? state.viewer.shown || "" : "";
}

/**
 * The clock a record (`kind` tender or contract) lives on, as the clock API reads it for the
 * record: a test clock (with `clock`, its id) or its owner's (the server's until the owner moved
 * its own).
 */
async function loadRecordClock(kind, id) {
  // The clock read before stays until the new read is in: a button pressed meanwhile still
  // moves the clock the header shows, not the viewer's own.
  if (!id || !state.clock.testing) {
    state.tenderClock = null;
    return;
  }
  const { status, body } = await getJson("/testing/clock?" + kind + "=" + encodeURIComponent(id), authHeaders());
  const found = status === 200 && body && body.data ? body.data : null;
  state.tenderClock = found;
  if (found && kind === "tender") state.clockOf.set(id, clockKeyOf(found));
}

/** The clock a record lives on, as `/testing/clock?tender=` answers it, for good. */
function clockKeyOf(found) {
  return found.clock ? { test: found.clock } : { broker: found.broker || "" };
}

/** A clock as a key of `clockNows`. */
function clockKey(c) {
  return c.test ? "test:" + c.test : "broker:" + c.broker;
}

/** A test clock as people name it: its name, if it has one, and its id. */
function testClockName(c) {
  return (c.name ? c.name + " " : "") + "(" + (c.id || c.clock) + ")";
}

/** Who may move the shown record's clock: the test clock's owner, or the broker it belongs to. */
function tenderClockOwner() {
  const tc = state.tenderClock, record = (contractInView() ? state.contract : state.tender) || {};
  return (tc && (tc.owner || tc.broker)) || record.owner || "";
}

/** "Now" for the shown tender: on the clock it lives on. */
function tenderNow() {
  return state.tenderClock ? ms(state.tenderClock.now) : state.clock.now;
}

/** Whether the page shows a tender, and the clock it lives on is known. */
function tenderInView() {
  const t = state.tender;
  return !!(t && state.tenderClock && selectedId() === t.id && state.tenderClock.tender === t.id);
}

/** Whether the page shows a contract under management, and the clock it lives on is known. */
function contractInView() {
  const c = state.contract, tc = state.tenderClock;
  return !!(c && tc && selectedContract() === c.id && tc.contract === c.id);
}

/** Whether the page shows a record (a tender or a contract) whose clock is known. */
function recordInView() {
  return tenderInView() || contractInView();
}

/**
 * The clock the header shows and its buttons move: on a tender's or a contract's page the one
 * the record lives on (a test clock, or its owner's); elsewhere the signed-in broker's own, or
 * the server's.
 */
function clockInView() {
  const c = state.clock, mine = state.viewerClock;
  if (recordInView()) {
    const tc = state.tenderClock, owner = tenderClockOwner();
    if (tc.clock) {
      return { label: owner + "'s test clock " + testClockName(tc), text: tc.now, frozen: tc.frozen, movable: tc.movable, server: false, deleted: tc.deleted };
    }
    const label = tc.own ? owner + "'s clock" : tc.broker ? "Server time (also " + owner + "'s clock)" : "Server time";
    return { label, text: tc.now, frozen: tc.frozen, movable: tc.movable, server: !tc.own };
  }
  if (mine) return { label: "Your clock (" + viewerName() + ")", text: mine.now, frozen: mine.frozen, movable: mine.movable, server: false };
  return { label: "Server time", text: c.text, frozen: c.frozen, movable: c.movable, server: true };
}

/** Moves the clock the header shows. */
function moveClockInView(data) {
  return recordInView() ? moveTenderClock(data) : moveClock(data);
}

function drawClock() {
  const c = state.clock;
  const shown = clockInView();
  $("clock-label").textContent = shown.label;
  $("clock-now").textContent = shortTime(shown.text) + " " + offsetOf(shown.text);
  const badge = $("clock-state");
  badge.textContent = shown.frozen ? "frozen" : "running";
  badge.className = "badge" + (shown.frozen ? " frozen" : "");
  const mine = state.viewerClock;
  $("clock-buttons").hidden = !c.testing || !shown.movable;
  $("freeze").textContent = shown.frozen ? "Release" : "Freeze";
  $("viewer-clock").textContent = mine && recordInView()
    ? "Your clock (" + viewerName() + (mine.own ? ", your own" : ", the server's until you move it") + "): " + shortTime(mine.now) + (mine.frozen ? " · frozen" : "")
    : "";
  const owner = recordInView() ? tenderClockOwner() : "";
  $("clock-note").textContent = !c.testing ? "read-only: start the server with --testing to move it"
    : shown.deleted ? "read-only: the clock was deleted and stands at its last moment"
    : !shown.movable ? (owner ? "read-only: sign in as " + owner + " to move it" : "read-only: sign in as a broker to move your own clock")
    : !shown.server ? "server time " + shortTime(c.text) : "";
  $("viewer-key-label").hidden = $("sign-in").hidden = !!state.viewer;
  $("sign-out").hidden = !state.viewer;
  $("sign-out").textContent = state.viewer ? "Sign out " + viewerName() : "Sign out";
  $("viewer-form").hidden = !c.testing;
  const next = tenderInView() && state.tender.next_check;
  const jump = $("jump-next");
  jump.disabled = !next || ms(next) <= tenderNow() || !state.tenderClock.movable;
  jump.title = next ? "to " + next : "open a tender that has a next check";
}

/** The server's words for a refusal: its first error's description, else its status. */
function refusal(status, body) {
  const e = body && Array.isArray(body.errors) && body.errors[0];
  return e && e.description ? String(e.description) : "the server answered " + status;
}

/** A request with a JSON body (or none) as the signed-in broker: its status and JSON answer. */
async function send(method, path, data) {
  const init = { method, headers: { Accept: "application/json", ...OWN, ...authHeaders() } };
  if (data !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify({ data });
  }
  const res = await fetch(path, init);
  const body = await res.json().catch(() => null);
  return { status: res.status, body };
}

/** Moves a clock: the signed-in broker's own, or (anonymously) the server's or the named one's. */
async function moveClock(data) {
  const { status, body } = await send("POST", "/testing/clock", data);
  showProblem(status === 200 ? "" : "The clock did not move: " + refusal(status, body));
  await refresh();
}

/** Moves the test clock `c` (its owner's move), saying a refusal through `say`. */
async function moveTestClock(c, data, say) {
  const id = c.id || c.clock;
  const { status, body } = await send("POST", "/testing/clocks/" + encodeURIComponent(id), data);
  say(status === 200 ? "" : "Test clock " + testClockName(c) + " did not move: " + refusal(status, body));
  await refresh();
}

/** Moves the clock the shown tender or contract lives on (`data` as the clock API takes it). */
function moveTenderClock(data) {
  const tc = state.tenderClock;
  if (tc && tc.clock) return moveTestClock(tc, data, showProblem);
  data = { ...data };
  // Anonymously (the server's owner, --testing) a broker's own clock is named.
  if (!state.viewer && tc && tc.own) data.broker = tc.broker;
  return moveClock(data);
}

// ---- the signed-in broker's test clocks ---------------------------------------------------

/** The viewer's test clocks, each with the records on it still live (as the list names them). */
async function loadTestClocks() {
  if (!state.viewer || !state.clock.testing) {
    state.testClocks = null;
    return;
  }
  const { status, body } = await getJson("/testing/clocks", authHeaders());
  const listed = status === 200 && body && Array.isArray(body.data);
  state.testClocks = listed ? body.data : null;
  for (const c of state.testClocks || []) {
    for (const id of (c.live && c.live.tenders) || []) state.clockOf.set(id, { test: c.id });
  }
}

/** At most this many listed tenders are asked which clock they live on per refresh. */
const CLOCK_LOOKUPS = 20;

/**
 * "Now" on the clock of each listed tender with a next move. Which clock a tender lives on is
 * asked once (a tender never changes clocks), unless the viewer's test clocks name it; then
 * each clock is read once a refresh: the viewer's test clocks from their list, any other test
 * clock by its id, a broker's clock by its name.
 */
async function loadRowClocks() {
  if (!state.clock.testing) {
    state.clockNows = new Map();
    return;
  }
  const due = [...state.rows.values()].filter((r) => r.next_check);
  const unknown = due.filter((r) => !state.clockOf.has(r.id)).slice(0, CLOCK_LOOKUPS);
  for (const r of unknown) {
    const found = await getJson("/testing/clock?tender=" + encodeURIComponent(r.id));
    if (found.status === 200 && found.body && found.body.data) state.clockOf.set(r.id, clockKeyOf(found.body.data));
  }
  const nows = new Map();
  for (const c of state.testClocks || []) nows.set(clockKey({ test: c.id }), ms(c.now));
  for (const r of due) {
    const on = state.clockOf.get(r.id);
    if (!on || nows.has(clockKey(on))) continue;
    const path = on.test ? "/testing/clocks/" + encodeURIComponent(on.test) : "/testing/clock?broker=" + encodeURIComponent(on.broker);
    const read = await getJson(path);
    nows.set(clockKey(on), read.status === 200 && read.body && read.body.data ? ms(read.body.data.now) : NaN);
  }
  state.clockNows = nows;
}

function showClocksProblem(text) {
  const p = $("clocks-problem");
  p.textContent = text || "";
  p.hidden = !text;
}

/** Deletes the test clock `c`; the server refuses one that holds a live record, saying which. */
async function deleteTestClock(c) {
  const { status, body } = await send("DELETE", "/testing/clocks/" + encodeURIComponent(c.id));
  showClocksProblem(status === 200 ? "" : "Test clock " + testClockName(c) + " was not deleted: " + refusal(status, body));
  await refresh();
}

/** "Now" for a listed tender: on the clock it lives on, once known; else the server's. */
function rowNow(r) {
  const on = state.clockOf.get(r.id);
  const now = on ? state.clockNows.get(clockKey(on)) : undefined;
  return now === undefined || Number.isNaN(now) ? undefined : now;
}

/** The listed tenders the test clock `c` names among its live records. */
function tendersOn(c) {
  const live = new Set((c.live && c.live.tenders) || []);
  return [...state.rows.values()].filter((r) => live.has(r.id));
}

function drawTestClocks() {
  const section = $("test-clocks");
  const clocks = state.testClocks;
  section.hidden = !clocks;
  if (!clocks) { state.clocksKey = ""; return; }
  const lines = clocks.map((c) => [c, tendersOn(c)]);
  // Redrawn only when something shown changed, so a button is not replaced under the pointer.
  const key = JSON.stringify(lines.map(([c, ts]) => [c.id, c.name, c.now, c.frozen, c.movable, ts.map((t) => [t.id, t.tenderID, t.status])]));
  if (key === state.clocksKey) return;
  state.clocksKey = key;
  const move = (c, data) => () => act(() => moveTestClock(c, data, showClocksProblem), showClocksProblem);
  $("clocks").tBodies[0].replaceChildren(...lines.map(([c, ts]) => h("tr", { "data-clock": c.id },
    h("td", { class: "clock-name" }, c.name || h("span", { class: "note" }, "no name")),
    h("td", {}, h("code", { class: "clock-id" }, c.id)),
    h("td", { class: "clock-now" }, shortTime(c.now) + " " + String(c.now).slice(26)),
    h("td", {}, h("span", { class: "badge clock-state" + (c.frozen ? " frozen" : "") }, c.frozen ? "frozen" : "running")),
    h("td", { class: "clock-tenders" }, ts.length
      ? ts.map((t, i) => [i ? ", " : null, h("a", { href: "#/tenders/" + encodeURIComponent(t.id), title: t.title || "" }, t.tenderID || t.id),
        " ", h("span", { class: "status" }, t.status || "")])
      : h("span", { class: "note" }, "none live")),
    h("td", { class: "clock-buttons" }, c.movable === false ? h("span", { class: "note" }, "read-only") : [
      h("button", { type: "button", class: "clock-hour", onclick: move(c, { advance: "PT1H" }) }, "+1 hour"),
      h("button", { type: "button", class: "clock-day", onclick: move(c, { advance: "P1D" }) }, "+1 day"),
      h("button", { type: "button", class: "clock-freeze", onclick: move(c, { frozen: !c.frozen }) }, c.frozen ? "Release" : "Freeze"),
      h("button", { type: "button", class: "clock-delete", title: "a clock is deleted once none of its records is live",
        onclick: () => act(() => deleteTestClock(c), showClocksProblem) }, "Delete")]),
  )));
  $("clocks").hidden = !clocks.length;
  $("clocks-empty").hidden = !!clocks.length;
  $("clocks-empty").textContent = clocks.length ? ""
    : "None: a broker creates test clocks through POST /testing/clocks and names one in a new tender's X-Testing-Clock header.";
}

// ---- the limits of the server, and what the signed-in broker holds -----------------------

/** How often the limits are read again (what a broker holds changes as it works). */
const LIMITS_MS = 10000;

/** The server's index as JSON: its limits, and with credentials what the broker holds. */
async function loadLimits() {
  if (state.limits && Date.now() - state.limitsAt < LIMITS_MS) return;
  const { status, body } = await getJson("/", authHeaders());
  if (status !== 200 || !body || !body.data) return;
  state.limits = { limits: body.data.limits || null, held: body.data.held || null, viewer: viewerName() };
  state.limitsAt = Date.now();
}

function count(n) {
  return Number(n).toLocaleString("en-US");
}

function size(n) {
  const units = [["GiB", 1 << 30], ["MiB", 1 << 20], ["KiB", 1 << 10]];
  for (const [name, unit] of units) {
    if (n >= unit) return (n % unit === 0 ? count(n / unit) : (n / unit).toFixed(1)) + " " + name;
  }
  return count(n) + (n === 1 ? " byte" : " bytes");
}

function drawLimits() {
  const section = $("limits");
  const found = state.limits && state.limits.limits;
  section.hidden = !found;
  if (!found) return;
  const l = found;
  const parts = [];
  if (l.rate) parts.push(count(l.rate.requests) + (l.rate.requests === 1 ? " request " : " requests ") + (l.rate.per === "hour" ? "an " : "a ") + l.rate.per + " (burst " + count(l.rate.burst) + ")");
  const many = (n, one, several) => count(n) + " " + (n === 1 ? one : several);
  if (l.liveTenders !== null && l.liveTenders !== undefined) parts.push(many(l.liveTenders, "live tender", "live tenders"));
  if (l.testClocks !== null && l.testClocks !== undefined) parts.push(many(l.testClocks, "live test clock", "live test clocks"));
  if (l.uploads !== null && l.uploads !== undefined) parts.push(many(l.uploads, "uploaded file", "uploaded files"));
  if (l.uploadBytes !== null && l.uploadBytes !== undefined) parts.push(size(l.uploadBytes) + " of uploaded files");
  $("limits-all").textContent = parts.length
    ? "Each broker may take: " + parts.join("; ") + (l.rate ? " (requests without a broker's credentials: each client address at the same rate)." : ".")
    : "No limits: no rate, no bound on what a broker keeps.";
  const held = state.limits.held;
  const bounded = (most) => most !== null && most !== undefined;
  // "3 of 100 test clocks": what the broker holds, and the bound where there is one.
  const of = (n, most, one, many) => count(n) + (bounded(most) ? " of " + count(most) : "") + " " + ((bounded(most) ? most : n) === 1 ? one : many);
  $("limits-held").textContent = held && state.viewer
    ? held.broker + " holds " + [
      of(held.liveTenders, l.liveTenders, "live tender", "live tenders"),
      bounded(l.testClocks) ? of(held.testClocks, l.testClocks, "test clock", "test clocks") : null,
      of(held.uploads, l.uploads, "uploaded file", "uploaded files") + " (" + size(held.uploadBytes) + (bounded(l.uploadBytes) ? " of " + size(l.uploadBytes) : "") + ")",
    ].filter(Boolean).join(" · ")
    : "";
}

// ---- the tender list --------------------------------------------------------------------

function listPath(offset) {
  let path = API + "/tenders?descending=1&limit=100&opt_fields=" + FIELDS;
  if (offset) path += "&offset=" + encodeURIComponent(offset);
  return path;
}

/** The newest page again; rows already loaded from older pages stay below it. */
async function loadNewest() {
  const { status, body } = await getJson(listPath(null));
  if (status !== 200 || !body) return;
  const fresh = new Map(body.data.map((row) => [row.id, row]));
  for (const [id, row] of state.rows) if (!fresh.has(id)) fresh.set(id, row);
  state.rows = new Map([...fresh.entries()].sort((a, b) => (a[1].dateModified < b[1].dateModified ? 1 : -1)));
  if (state.olderOffset === null) state.olderOffset = body.data.length === 100 ? body.next_page.offset : "";
  state.listLoaded = true;
}

async function loadOlder() {
  if (!state.olderOffset) return;
  const { status, body } = await getJson(listPath(state.olderOffset));
  if (status !== 200 || !body) return;
  for (const row of body.data) if (!state.rows.has(row.id)) state.rows.set(row.id, row);
  state.olderOffset = body.data.length === 100 ? body.next_page.offset : "";
  drawList();
}

function fillSelect(select, values) {
  const chosen = select.value;
  const known = new Set([...select.options].map((o) => o.value));
  for (const v of new Set(values)) if (!known.has(v)) select.append(h("option", { value: v }, v));
  select.value = chosen;
}

function drawList() {
  const rows = [...state.rows.values()];
  fillSelect($("filter-status"), STATUSES.concat(rows.map((r) => r.status)).filter(Boolean));
  fillSelect($("filter-owner"), [...new Set(rows.map((r) => r.owner).filter(Boolean))].sort());
  const status = $("filter-status").value, owner = $("filter-owner").value;
  const shown = rows.filter((r) => (!status || r.status === status) && (!owner || r.owner === owner));
  const body = $("tenders").tBodies[0];
  body.replaceChildren(...shown.map((r) => h("tr", { "data-id": r.id },
    h("td", {}, h("a", { href: "#/tenders/" + encodeURIComponent(r.id) }, r.tenderID || r.id)),
    h("td", {}, r.title || "", r.mode === "test" ? h("span", { class: "badge test" }, " test ") : null),
    h("td", { class: "status" }, r.status || ""),
    h("td", {}, r.owner || ""),
    h("td", {}, r.next_check ? relative(ms(r.next_check), rowNow(r)) : "—", r.next_check ? h("div", { class: "note" }, shortTime(r.next_check)) : null),
    h("td", { class: "note" }, shortTime(r.dateModified)),
  )));
  $("list-count").textContent = shown.length + " of " + rows.length + " loaded";
  const empty = state.listLoaded && !shown.length;
  $("tenders").hidden = empty;
  $("list-empty").hidden = !empty;
  $("list-empty").textContent = !empty ? ""
    : rows.length ? "No tender loaded matches these filters."
    : "No tenders yet: a tender shows here once a broker publishes it through the API.";
  $("more").hidden = !state.olderOffset;
}

// ---- one tender -------------------------------------------------------------------------

function selectedId() {
  const m = location.hash.match(/^#\/tenders\/([^/?]+)/);
  return m ? decodeURIComponent(m[1]) : null;
}

function selectedContract() {
  const m = location.hash.match(/^#\/contracts\/([^/?]+)/);
  return m ? decodeURIComponent(m[1]) : null;
}

async function loadTender(id) {
  const { status, body } = await getJson(API + "/tenders/" + encodeURIComponent(id));
  if (status !== 200 || !body) {
    state.tender = null;
    showProblem("Tender " + id + " is not found (drafts are not public).");
    return;
  }
  state.tender = body.data;
}

/** The tender's auctions (its own, or each lot's) as their JSON interface shows them now. */
async function loadAuctions(t) {
  const found = [];
  if (t.auctionUrl) found.push({ name: "", url: t.auctionUrl });
  for (const lot of t.lots || []) if (lot.auctionUrl) found.push({ name: lot.title || lot.id, url: lot.auctionUrl });
  const shown = [];
  for (const a of found) {
    let path;
    try { path = new URL(a.url).pathname; } catch (e) { continue; }
    const { status, body } = await getJson(path + "/state");
    if (status === 200 && body) shown.push({ name: a.name, url: a.url, auction: body.data });
  }
  state.auctions = shown;
}

/** One line on an auction: its stage, whose turn, and until when. */
function auctionStage(a) {
  const s = a.auction.stage || {};
  let text;
  if (a.auction.status === "finished") text = "finished";
  else if (s.type === "waiting") text = "starts " + shortTime(a.auction.startDate);
  // A waiting auction's stage ends at its start, already said.
  else if (s.type === "bids") text = "round " + s.round + ": " + (s.bidder || "") + "'s turn";
  else if (s.type === "pause") text = "pause before round " + s.round;
  else text = "announcing the results";
  const until = s.end && a.auction.status !== "finished" && s.type !== "waiting" ? " until " + shortTime(s.end) : "";
  return h("span", {}, h("span", { class: "status auction-stage" }, text + until), " ",
    h("a", { href: a.url, class: "auction-link" }, a.name ? "auction of " + a.name : "the auction's page"));
}

/** Lanes of the timeline: the periods the record holds. */
function lanes(t) {
  const out = [];
  const add = (name, period) => { if (period && (period.startDate || period.endDate)) out.push({ name, period }); };
  add("Enquiries", t.enquiryPeriod);
  add("Tendering", t.tenderPeriod);
  add("Auction", t.auctionPeriod);
  for (const lot of t.lots || []) add("Auction: " + (lot.title || lot.id), lot.auctionPeriod);
  add("Awarding", t.awardPeriod);
  (t.awards || []).forEach((a, i) => add("Stand-still, award " + (i + 1), a.complaintPeriod));
  (t.complaints || []).forEach((c, i) => add("Claim " + (i + 1) + " " + (c.status || ""), { startDate: c.dateSubmitted || c.date, endDate: c.dateAnswered }));
  return out;
}

function drawTimeline(t) {
  const now = tenderNow();
  const list = lanes(t);
  const points = [now];
  for (const l of list) for (const p of [l.period.startDate, l.period.endDate]) if (!Number.isNaN(ms(p))) points.push(ms(p));
  if (t.next_check) points.push(ms(t.next_check));
  let lo = Math.min(...points), hi = Math.max(...points);
  const pad = Math.max((hi - lo) * 0.04, 3600000);
  lo -= pad; hi += pad;
  const at = (x) => ((x - lo) / (hi - lo)) * 100 + "%";
  const lanesEl = list.map((l) => {
    const s = ms(l.period.startDate), e = ms(l.period.endDate);
    const start = Number.isNaN(s) ? e : s, end = Number.isNaN(e) ? hi : e;
    const cls = end <= now ? "bar past" : start <= now ? "bar current" : "bar";
    return h("div", { class: "lane" },
      h("div", { class: "name", title: l.name }, l.name),
      h("div", { class: "track" },
        h("div", { class: cls, style: "left:" + at(start) + ";width:calc(" + at(end) + " - " + at(start) + ")",
          title: shortTime(l.period.startDate) + " → " + (shortTime(l.period.endDate) || "not set yet") })));
  });
  const overlay = h("div", { style: "position:absolute;top:0;bottom:0;left:11rem;right:0;pointer-events:none" },
    h("div", { class: "now-line", style: "left:" + at(now) }, h("span", {}, "now")),
    t.next_check ? h("div", { class: "check-line", style: "left:" + at(ms(t.next_check)), title: "next check " + t.next_check }) : null);
  return h("div", {},
    h("div", { class: "timeline", id: "timeline" }, lanesEl, overlay),
    h("div", { class: "axis" }, h("div"), h("div", { class: "ends" },
      h("span", {}, inZoneOf(t.dateModified, lo)),
      h("span", {}, inZoneOf(t.dateModified, hi)))),
    list.length ? null : h("p", { class: "note" }, "No periods yet."));
}

/** The tender's "now" where it differs from the server's: on a test clock or its owner's own. */
function tenderTime(t) {
  const tc = state.tenderClock;
  if (!tc || !(tc.clock || tc.own)) return null;
  const on = tc.clock ? " on " + tenderClockOwner() + "'s test clock " + testClockName(tc) + (tc.deleted ? ", deleted" : "")
    : " on " + t.owner + "'s own clock";
  return h("span", { id: "tender-clock" }, shortTime(tc.now) + on + (tc.frozen ? " (frozen)" : ""));
}

/**
 * Dates the record names that still lie ahead, as places to move the clock to: a tender waits
 * for some of them with no next check of its own (the end of an award's stand-still, after
 * which only the owner's signature moves it).
 */
function jumpTargets(t) {
  const out = [];
  const add = (label, when) => { if (typeof when === "string" && ms(when) > tenderNow()) out.push({ label, when }); };
  add("next check", t.next_check);
  add("tendering starts", t.tenderPeriod && t.tenderPeriod.startDate);
  add("tendering ends", t.tenderPeriod && t.tenderPeriod.endDate);
  add("auction starts", t.auctionPeriod && t.auctionPeriod.startDate);
  for (const lot of t.lots || []) add("auction of " + (lot.title || lot.id) + " starts", lot.auctionPeriod && lot.auctionPeriod.startDate);
  (t.awards || []).forEach((a, i) => add("stand-still of award " + (i + 1) + " ends", a.complaintPeriod && a.complaintPeriod.endDate));
  const seen = new Set();
  return out.filter((x) => !seen.has(x.when) && seen.add(x.when)).sort((a, b) => ms(a.when) - ms(b.when));
}

/**
 * Buttons that move the tender's clock (its owner's) a second past each date ahead: for its
 * owner signed in here, or anonymously on a server its runner owns (--testing); read-only else.
 */
function drawJumps(t) {
  if (!state.clock.testing) return null;
  const tc = state.tenderClock;
  if (tc && tc.clock && tc.deleted) {
    return h("p", { class: "note jumps-note" }, "Read-only: the tender's test clock " + testClockName(tc) + " was deleted and stands at its last moment.");
  }
  if (!tc || !tc.movable) {
    const owner = tenderClockOwner();
    const clock = tc && tc.clock ? owner + "'s test clock " + testClockName(tc) : owner + "'s clock";
    return h("p", { class: "note jumps-note" }, "Read-only: the tender lives on " + clock + "; sign in as " + owner + " to move it.");
  }
  const targets = jumpTargets(t);
  if (!targets.length) return h("p", { class: "note" }, "No date ahead to jump to.");
  return h("div", { class: "jumps" }, "Jump to: ", targets.map((x) =>
    h("button", { type: "button", class: "jump", "data-when": x.when, title: "a second past " + x.when,
      onclick: () => act(() => moveTenderClock({ now: new Date(ms(x.when) + 1000).toISOString() }), showProblem) },
      x.label + " (" + shortTime(x.when) + ")")));
}

/** Statuses the tender has been through, as far as its dates tell. */
function history(t) {
  const now = tenderNow();
  const steps = [];
  const step = (status, when) => { if (when && ms(when) <= now) steps.push([status, when]); };
  step("active.enquiries", (t.enquiryPeriod && t.enquiryPeriod.startDate) || t.date);
  step("active.tendering", t.tenderPeriod && t.tenderPeriod.startDate);
  step("active.auction", t.auctionPeriod && t.auctionPeriod.startDate);
  step("active.qualification", t.awardPeriod && t.awardPeriod.startDate);
  const won = (t.awards || []).find((a) => a.status === "active");
  step("active.awarded", won && won.date);
  const seen = new Set(steps.map((s) => s[0]));
  if (!seen.has(t.status)) steps.push([t.status, t.dateModified]);
  return h("ol", { class: "history" }, steps.map(([s, when]) =>
    h("li", {}, h("span", { class: "status" }, s), " since ", shortTime(when))));
}

/** An award's stand-still: its end once the award is decided; before, only its start. */
function standStill(a) {
  const p = a.complaintPeriod;
  if (p && p.endDate) return h("span", { class: "note stand-still" }, " stand-still until " + shortTime(p.endDate));
  if (p && p.startDate) {
    return h("span", { class: "note stand-still" },
      " complaints open since " + shortTime(p.startDate) + "; the stand-still's end is set when the award is decided");
  }
  return null;
}

/**
 * A contract of the tender as the tender keeps it (upstream leaves it `active` once signed),
 * and, once contract management holds it, its status there and a link to it.
 */
function contractLine(c) {
  const m = state.managed.get(c.id);
  return [c.contractID || c.id, " ", h("span", { class: "status" }, c.status), " ", money(c.value),
    m ? h("span", { class: "managed" }, " · ",
      h("a", { href: "#/contracts/" + encodeURIComponent(c.id), class: "contract-link",
        title: "the tender keeps the contract as signed; contract management holds it since" },
      "under contract management: ", h("span", { class: "status managed-status" }, m.status))) : null];
}

/** The tender's signed contracts that contract management holds, as it holds them now. */
async function loadManaged(t) {
  const managed = new Map();
  for (const c of t.contracts || []) {
    if (c.status !== "active") continue;
    const { status, body } = await getJson(API + "/contracts/" + encodeURIComponent(c.id));
    if (status === 200 && body && body.data) managed.set(c.id, body.data);
  }
  state.managed = managed;
}

function money(v) {
  return v && v.amount !== undefined ? v.amount + " " + (v.currency || "") : "";
}

function names(orgs) {
  return (orgs || []).map((o) => o.name).filter(Boolean).join(", ");
}

function records(title, list, line) {
  if (!list || !list.length) return null;
  return h("div", {}, h("h3", {}, title + " (" + list.length + ")"),
    h("ul", { class: "records" }, list.map((x) => h("li", {}, line(x)))));
}

function docLine(d) {
  return [h("a", { href: d.url }, d.title || d.id), " ", h("span", { class: "note" }, (d.format || "") + " · " + shortTime(d.datePublished))];
}

function drawTender() {
  const t = state.tender;
  const view = $("tender-view");
  if (!t) { view.replaceChildren(h("p", {}, h("a", { href: "#/" }, "← all tenders"))); return; }
  const facts = [
    ["Status", h("span", { class: "status", id: "tender-status" }, t.status)],
    ["Next move", t.next_check ? relative(ms(t.next_check), tenderNow()) + " (" + shortTime(t.next_check) + ")" : "none due"],
    ["Its time", tenderTime(t)],
    ["Owner", t.owner], ["Procuring entity", t.procuringEntity && t.procuringEntity.name],
    ["Value", money(t.value)], ["Minimal step", money(t.minimalStep)],
    ["Method", t.procurementMethodType + (t.procurementMethodDetails ? " · " + t.procurementMethodDetails : "")],
    ["Bids", t.numberOfBids !== undefined ? String(t.numberOfBids) : "confidential until qualification"],
    ["Auction", (state.auctions || []).length ? h("span", {}, state.auctions.map((a, i) => [i ? h("br") : null, auctionStage(a)])) : null],
    ["Changed", shortTime(t.dateModified)],
  ].filter(([, v]) => v !== undefined && v !== null && v !== "");
  view.replaceChildren(
    h("p", {}, h("a", { href: "#/" }, "← all tenders"),
      state.viewer ? [" · ", h("a", { id: "tender-requests", href: "#/requests?record=" + encodeURIComponent(t.id) }, "your exchanges that touched it")] : null),
    h("div", { class: "card" },
      h("h2", {}, (t.tenderID || t.id) + " · " + (t.title || ""), t.mode === "test" ? h("span", { class: "badge test" }, " test ") : null),
      h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))),
    h("div", { class: "card" }, h("h3", {}, "Timeline"), drawTimeline(t), drawJumps(t)),
    h("div", { class: "card" }, h("h3", {}, "Status history (from the record's dates)"), history(t),
      records("Documents", t.documents, docLine),
      records("Questions", t.questions, (q) => [h("strong", {}, q.title || ""), " ", q.description || "",
        q.author ? h("span", { class: "note" }, " — " + (q.author.name || "")) : null,
        h("div", {}, q.answer ? "Answer: " + q.answer : h("span", { class: "note" }, "not answered"))]),
      records("Lots", t.lots, (l) => [h("strong", {}, l.title || l.id), " ", h("span", { class: "status" }, l.status || ""), " ", money(l.value)]),
      records("Bids", t.bids, (b) => [names(b.tenderers), " ", money(b.value), " ", h("span", { class: "status" }, b.status || "")]),
      records("Awards", t.awards, (a) => [h("span", { class: "status" }, a.status), " ", names(a.suppliers), " ", money(a.value), standStill(a)]),
      records("Contracts", t.contracts, contractLine),
      records("Cancellations", t.cancellations, (c) => [h("span", { class: "status" }, c.status), " ", c.reason || ""]),
      records("Claims", t.complaints, (c) => [h("span", { class: "status" }, c.status), " ", c.title || "",
        c.resolution ? h("span", { class: "note" }, " — " + c.resolution) : null])),
    h("details", { class: "card" }, h("summary", {}, "Raw JSON"), h("pre", { class: "raw" }, JSON.stringify(t, null, 2))),
  );
}

// ---- one contract under management --------------------------------------------------------

async function loadContract(id) {
  const { status, body } = await getJson(API + "/contracts/" + encodeURIComponent(id));
  if (status !== 200 || !body) {
    state.contract = null;
    showProblem("Contract " + id + " is not under management (its lot has not completed).");
    return;
  }
  state.contract = body.data;
}

function drawContract() {
  const c = state.contract;
  const view = $("contract-view");
  const back = c ? h("a", { href: "#/tenders/" + encodeURIComponent(c.tender_id) }, "← its tender") : h("a", { href: "#/" }, "← all tenders");
  if (!c) { view.replaceChildren(h("p", {}, back)); return; }
  const facts = [
    ["Status", h("span", { class: "status", id: "contract-status" }, c.status)],
    ["Contract number", c.contractNumber], ["Owner", c.owner],
    ["Supplier", names(c.suppliers)], ["Value", money(c.value)], ["Paid", money(c.amountPaid)],
    ["Signed", shortTime(c.dateSigned)],
    ["Period", c.period ? shortTime(c.period.startDate) + " → " + shortTime(c.period.endDate) : null],
    ["Termination", c.terminationDetails], ["Changed", shortTime(c.dateModified)],
  ].filter(([, v]) => v !== undefined && v !== null && v !== "");
  view.replaceChildren(
    h("p", {}, back),
    h("div", { class: "card" },
      h("h2", {}, (c.contractID || c.id) + (c.title ? " · " + c.title : ""), c.mode === "test" ? h("span", { class: "badge test" }, " test ") : null),
      h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))),
    h("div", { class: "card" },
      records("Changes", c.changes, (ch) => [h("span", { class: "status" }, ch.status), " ", ch.rationale || "",
        " ", h("span", { class: "note" }, (ch.rationaleTypes || []).join(", ") + (ch.dateSigned ? " · signed " + shortTime(ch.dateSigned) : ""))]),
      records("Documents", c.documents, docLine),
      (c.changes || []).length || (c.documents || []).length ? null : h("p", { class: "note" }, "No changes or documents yet.")),
    h("details", { class: "card" }, h("summary", {}, "Raw JSON"), h("pre", { class: "raw" }, JSON.stringify(c, null, 2))),
  );
}

// ---- the loop ---------------------------------------------------------------------------

/** The request log's view the hash names: {kind: "list", query} , {kind: "one", id}, {kind: "report"}, or null. */
function selectedLog() {
  const one = location.hash.match(/^#\/requests\/(req-[0-9a-f]+)/);
  if (one) return { kind: "one", id: one[1] };
  const list = location.hash.match(/^#\/requests(\?.*)?$/);
  if (list) return { kind: "list", query: new URLSearchParams((list[1] || "").slice(1)) };
  if (/^#\/report/.test(location.hash)) return { kind: "report" };
  return null;
}

function route() {
  const id = selectedId();
  const contract = selectedContract();
  const log = selectedLog();
  $("list-view").hidden = !!(id || contract || log);
  $("tender-view").hidden = !id;
  $("contract-view").hidden = !contract;
  $("requests-view").hidden = !(log && log.kind === "list");
  $("request-view").hidden = !(log && log.kind === "one");
  $("report-view").hidden = !(log && log.kind === "report");
  $("broker-links").hidden = !state.viewer;
  return id;
}

// ---- the request log and the client's report ------------------------------------------------

const SIGN_IN_FIRST = "Sign in as a broker to see its requests: the log is each broker's own.";

async function loadRequests(query) {
  state.requests = null;
  if (!state.viewer) return;
  const { status, body } = await getJson("/testing/requests?" + query.toString(), authHeaders());
  state.requests = status === 200 ? body : { problem: refusal(status, body) };
}

function requestFilters() {
  const q = new URLSearchParams();
  for (const [name, el] of [["status", "request-status"], ["method", "request-method"], ["path", "request-path"], ["record", "request-record"]]) {
    const v = $(el).value.trim();
    if (v) q.set(name, v);
  }
  return q;
}

function drawRequests(query) {
  for (const [name, el] of [["status", "request-status"], ["method", "request-method"], ["path", "request-path"], ["record", "request-record"]]) {
    if (document.activeElement !== $(el)) $(el).value = query.get(name) || "";
  }
  const r = state.requests;
  const rows = r && Array.isArray(r.data) ? r.data : [];
  $("requests").querySelector("tbody").replaceChildren(...rows.map((e) => h("tr", { class: e.status >= 400 || e.lost ? "error" : "", "data-id": e.id },
    h("td", {}, shortTime(e.at)),
    h("td", {}, e.method),
    h("td", {}, e.path + (e.query ? "?" + e.query : "")),
    h("td", { class: "code" }, e.lost ? "lost (" + e.status + ")" : String(e.status)),
    h("td", {}, String(e.ms)),
    h("td", {}, e.fault ? e.fault.fault : ""),
    h("td", {}, h("a", { href: "#/requests/" + e.id }, e.id)))));
  const empty = $("requests-empty");
  empty.hidden = rows.length > 0;
  empty.textContent = !state.viewer ? SIGN_IN_FIRST : r && r.problem ? r.problem : "No request of yours matches.";
  $("requests-count").textContent = r && r.log ? rows.length + " shown of " + r.log.kept + " kept (the last " + r.log.bound + ")" : "";
}

async function loadExchange(id) {
  state.exchange = null;
  if (!state.viewer) return;
  const { status, body } = await getJson("/testing/requests/" + encodeURIComponent(id), authHeaders());
  state.exchange = status === 200 ? body.data : { problem: refusal(status, body) };
}

function bodyOf(b) {
  if (!b || !b.size) return h("p", { class: "note" }, "no body");
  const text = b.json !== undefined ? JSON.stringify(b.json, null, 2) : (b.text || "");
  return h("div", {},
    h("p", { class: "note" }, b.size + " bytes" + (b.contentType ? ", " + b.contentType : "") + (b.cut ? ", cut: only its start is kept" : "") + (b.token ? ", token sent as " + b.token : "")),
    text ? h("pre", { class: "raw" }, text) : null);
}

function drawExchange() {
  const e = state.exchange;
  const view = $("request-view");
  const back = h("p", {}, h("a", { href: "#/requests" }, "← your requests"));
  if (!e || e.problem) { view.replaceChildren(back, h("p", { class: "problem" }, e ? e.problem : SIGN_IN_FIRST)); return; }
  const facts = [
    ["Request id", e.id], ["When", shortTime(e.at)], ["Request", e.method + " " + e.path + (e.query ? "?" + e.query : "")],
    ["Status", h("span", { id: "exchange-status" }, e.lost ? e.status + ", its answer lost" : String(e.status))], ["Took", e.ms + " ms"],
    ["Fault rule", e.fault ? e.fault.fault + " (" + e.fault.rule + ")" : null],
    ["Record", e.record ? (e.record.kind === "tender" ? h("a", { href: "#/tenders/" + e.record.id }, e.record.id) : e.record.kind + " " + e.record.id) : null],
    ["Location", e.response && e.response.location],
  ].filter(([, v]) => v !== undefined && v !== null && v !== "");
  view.replaceChildren(back,
    h("div", { class: "card" }, h("h2", {}, e.method + " " + e.path),
      h("dl", { class: "facts" }, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])),
      h("h3", {}, "Repeat it"), h("pre", { class: "curl" }, e.curl)),
    h("div", { class: "card", id: "exchange-request" }, h("h3", {}, "Request body"), bodyOf(e.request)),
    h("div", { class: "card", id: "exchange-response" }, h("h3", {}, "Response body"), bodyOf(e.response)));
}

async function loadReport() {
  state.report = null;
  if (!state.viewer) return;
  const { status, body } = await getJson("/testing/report", authHeaders());
  state.report = status === 200 ? body.data : { problem: refusal(status, body) };
}

function drawReport() {
  const r = state.report;
  const view = $("report-view");
  if (!r || r.problem) { view.replaceChildren(h("p", { class: "problem" }, r ? r.problem : SIGN_IN_FIRST)); return; }
  view.replaceChildren(
    h("h2", { id: "report-verdict" }, r.passed ? "Your client follows every rule the log can show" : r.failed + " rule(s) broken"),
    h("p", { class: "note" }, "Judged from " + r.exchanges + " exchange(s) of " + r.broker + "; as JUnit XML at ",
      h("a", { href: "/testing/report?format=junit" }, "/testing/report?format=junit"), " (with your credentials)."),
    ...r.rules.map((rule) => h("div", { class: "card rule " + (rule.passed ? "passed" : "failed"), "data-rule": rule.rule },
      h("h3", {}, (rule.passed ? "✓ " : "✗ ") + rule.title),
      h("p", { class: "note" }, rule.spec + ": “" + rule.words + "”"),
      rule.findings.length ? h("ul", {}, rule.findings.map((f) => h("li", {}, f.description, " ",
        f.requests.map((id, i) => [i ? ", " : "", h("a", { href: "#/requests/" + id }, id)])))) : null)));
}

function logKey(log) {
  const shown = log.kind === "list" ? state.requests : log.kind === "one" ? state.exchange : state.report;
  return log.kind + "|" + location.hash + "|" + JSON.stringify(shown);
}

let busy = false;
async function refresh() {
  if (busy) return;
  busy = true;
  try {
    await loadClock();
    const id = route();
    const contract = selectedContract();
    if (contract) {
      await loadContract(contract);
      await loadRecordClock("contract", state.contract && state.contract.id);
      const key = "c|" + contract + "|" + (state.contract && state.contract.dateModified);
      if (key !== state.shownKey) { state.shownKey = key; drawContract(); }
    } else if (selectedLog()) {
      const log = selectedLog();
      if (log.kind === "list") await loadRequests(log.query);
      if (log.kind === "one") await loadExchange(log.id);
      if (log.kind === "report") await loadReport();
      const key = logKey(log);
      if (key !== state.shownKey) {
        state.shownKey = key;
        if (log.kind === "list") drawRequests(log.query);
        if (log.kind === "one") drawExchange();
        if (log.kind === "report") drawReport();
      }
    } else if (id) {
      await loadTender(id);
      await loadRecordClock("tender", state.tender && state.tender.id);
      if (state.tender) await loadAuctions(state.tender);
      if (state.tender) await loadManaged(state.tender);
      // Redrawn only when the tender, its auctions or the clock changed, so an open <details>
      // stays open.
      const stages = (state.auctions || []).map((a) => a.auction.status + (a.auction.stage && a.auction.stage.index)).join(",");
      const managed = [...state.managed.values()].map((m) => m.id + m.status + m.dateModified).join(",");
      const key = id + "|" + (state.tender && state.tender.dateModified) + "|" + state.clock.now + "|" + tenderNow() + "|" + stages + "|" + managed;
      if (key !== state.shownKey) { state.shownKey = key; drawTender(); }
    } else {
      state.tender = null;
      await loadNewest();
      await loadTestClocks();
      await loadRowClocks();
      drawList();
      drawTestClocks();
    }
    await loadLimits();
    drawLimits();
    drawClock();
  } catch (e) {
    showProblem("The server did not answer: " + e);
  } finally {
    busy = false;
  }
}

/** Runs a button's request; a failure to reach the server is said on the page, not thrown. */
function act(run, say) {
  Promise.resolve().then(run).catch((e) => say("The server did not answer: " + e));
}

function start() {
  $("advance-hour").addEventListener("click", () => act(() => moveClockInView({ advance: "PT1H" }), showProblem));
  $("advance-day").addEventListener("click", () => act(() => moveClockInView({ advance: "P1D" }), showProblem));
  $("jump-next").addEventListener("click", () => act(() => tenderInView() && state.tender.next_check && moveTenderClock({ now: state.tender.next_check }), showProblem));
  $("freeze").addEventListener("click", () => act(() => moveClockInView({ frozen: !clockInView().frozen }), showProblem));
  try {
    state.viewer = JSON.parse(sessionStorage.getItem("viewer") || "null");
  } catch (e) {
    state.viewer = null;
  }
  if (state.viewer && typeof state.viewer.key !== "string") state.viewer = null;
  $("viewer-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const key = $("viewer-key").value.trim();
    if (!key) return;
    act(() => signIn(key), showSignInProblem);
  });
  $("sign-out").addEventListener("click", () => {
    forgetViewer("");
    showClocksProblem("");
    refresh();
  });
  $("filter-status").addEventListener("change", drawList);
  $("filter-owner").addEventListener("change", drawList);
  $("more").addEventListener("click", () => act(loadOlder, showProblem));
  $("request-filters").addEventListener("submit", (e) => e.preventDefault());
  for (const el of ["request-status", "request-method", "request-path", "request-record"]) {
    $(el).addEventListener("change", () => { location.hash = "#/requests?" + requestFilters().toString(); });
  }
  window.addEventListener("hashchange", () => { state.shownKey = ""; showProblem(""); refresh(); });
  refresh();
  setInterval(refresh, REFRESH_MS);
}

start();
