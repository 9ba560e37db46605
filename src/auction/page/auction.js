// The auction's page: reads the auction's JSON interface every second and draws it; a
// participant (its page's address carries key_for_bid and hash) confirms once that it takes
// part, then bids in its turn. Every text from the server goes on the page as text, never as
// markup. Phrases that must disappear when their moment passes are removed from the page,
// not hidden, as scripts that read the page check the whole of it.
"use strict";

const query = new URLSearchParams(location.search);
const KEY = query.get("key_for_bid");
const HASH = query.get("hash");
const PARTICIPANT = Boolean(KEY && HASH);
const BASE = location.pathname.replace(/\/+$/, "");
const CREDENTIALS = PARTICIPANT ? "?key_for_bid=" + encodeURIComponent(KEY) + "&hash=" + encodeURIComponent(HASH) : "";
const CONSENT = "auction-consent:" + BASE + ":" + KEY;
const REFRESH_MS = 1000;
const ALERT_MS = 4000;

// Upstream's Ukrainian for the refusals it translated; the others are shown as they come.
const REFUSALS = {
  "Too high value": "Надто висока заявка",
  "Stage not for bidding": "Даний етап аукціону не передбачає приймання заявок",
};

const view = {
  state: null,
  fetchedAt: 0,    // performance.now() when the state was read
  serverNow: 0,    // the server's now then, in ms
  stageKey: "",    // the stage the form was last reset for
  allowBidding: true,
};

const $ = (id) => document.getElementById(id);

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else el.setAttribute(k, v);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** Upstream's number format: two decimals, an ASCII space between thousands, a decimal comma. */
function money(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "";
  return n.toFixed(2).replace(/(\d)(?=(\d{3})+\.)/g, "$1 ").replace(".", ",");
}

/** An amount as typed: `1234.5`, `1 234,5`, `0`; NaN when it is none. */
function amountOf(text) {
  const plain = String(text).replace(/\s/g, "").replace(",", ".");
  return plain === "" ? NaN : Number(plain);
}

function ms(text) {
  if (typeof text !== "string") return NaN;
  return Date.parse(text.replace(/(\.\d{3})\d+/, "$1"));
}

function now() {
  return view.serverNow + (performance.now() - view.fetchedAt);
}

function countdown(until) {
  const left = Math.max(0, Math.round((until - now()) / 1000));
  const h2 = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
  const pad = (x) => String(x).padStart(2, "0");
  return (h2 ? h2 + ":" + pad(m) : m) + ":" + pad(s);
}

/** `30.11.2026 о 11:21`, in the server's offset. */
function endedAt(text) {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d)/.exec(text || "");
  return m ? m[3] + "." + m[2] + "." + m[1] + " о " + m[4] + ":" + m[5] : "";
}

function showProblem(text) {
  $("problem").textContent = text || "";
  $("problem").hidden = !text;
}

// ---- what the header says -----------------------------------------------------------------

function timer(s) {
  const stage = s.stage || {};
  const me = s.participant;
  if (s.status === "finished") {
    const ended = "Аукціон завершився " + endedAt(s.endDate);
    return { text: s.namesRevealed ? ended : ended + ". Очікуємо на розкриття імен учасників.", until: null, round: s.namesRevealed ? "Завершено" : "Раунд 3" };
  }
  if (stage.type === "waiting") {
    return { text: "до початку аукціону", until: ms(s.startDate), round: "Очікування" };
  }
  const until = ms(stage.end);
  if (stage.type === "pause") {
    const r = stage.round;
    return { text: "до початку раунду", until, round: (r > 1 ? r - 1 + " " : "") + "→ " + r };
  }
  if (stage.type === "bids") {
    const round = "Раунд " + stage.round;
    if (me && me.turn) return { text: "до закінчення вашої черги", until, round };
    if (me && me.nextTurn) return { text: "до вашої черги", until: ms(me.nextTurn), round };
    return { text: "до закінчення раунду", until, round };
  }
  return { text: "", until: null, round: "Раунд 3" };
}

function drawHeader() {
  const s = view.state;
  const t = timer(s);
  $("countdown").textContent = t.until ? countdown(t.until) : "";
  $("timer-text").textContent = t.text;
  $("round_information_block").textContent = t.round;
  document.title = t.text || "Аукціон";
  const stage = s.stage || {};
  const start = ms(stage.start), end = ms(stage.end);
  const done = end > start ? Math.min(1, Math.max(0, (now() - start) / (end - start))) : 1;
  $("progress-bar").style.width = Math.round(done * 100) + "%";
}

// ---- the body -----------------------------------------------------------------------------

function rows(list, label, minimum) {
  return list.map((row, i) => h("tr", { class: row.changed ? "changed" : null, "data-place": row.place },
    h("td", {}, row.bidder),
    h("td", { class: "amount" }, row.amount === undefined ? "" : money(row.amount)),
    h("td", { class: "note" }, label(row, i), minimum && i === list.length - 1 ? "мінімум" : "")));
}

function drawBody() {
  const s = view.state;
  $("tender-title").textContent = s.title || "";
  $("tender-id").textContent = s.tenderID || "";
  $("procuring-entity").textContent = s.procuringEntity || "";
  $("lot-title").textContent = s.lot ? s.lot.title : "";
  $("items").replaceChildren(...(s.items || []).map((i) =>
    h("li", {}, i.description, i.quantity !== undefined && i.quantity !== null ? " · " + i.quantity + " " + ((i.unit && i.unit.name) || "") : "")));
  $("start-value").textContent = s.value ? money(s.value.amount) + " " + s.value.currency : "";
  $("minimal-step").textContent = s.minimalStep ? money(s.minimalStep.amount) + " " + s.minimalStep.currency : "";
  const waiting = s.status === "waiting";
  $("initial-title").textContent = waiting ? "Учасники" : "Початкові заявки";
  $("initial").tBodies[0].replaceChildren(...rows(s.initial || s.results || [], () => "", false));
  const rounds = [];
  for (let r = 1; r <= 3; r++) {
    const turns = (s.stages || []).filter((st) => st.type === "bids" && st.round === r && st.bidder !== undefined);
    if (!turns.length) continue;
    rounds.push(h("div", { class: "card round-card" }, h("h2", {}, "Раунд " + r),
      h("table", {}, h("tbody", {}, rows(turns, () => "", false)))));
  }
  $("rounds").replaceChildren(...rounds);
  $("results-title").textContent = s.status === "finished" ? "Оголошення результатів" : "Можливі результати";
  $("results").tBodies[0].replaceChildren(...rows(s.results || [], () => "", true));
  let growl = "";
  if (!PARTICIPANT) growl = "Ви спостерігач і не можете робити ставки.";
  else if (waiting) growl = "Ви зареєстровані як учасник. Очікуйте старту аукціону.";
  $("growl").textContent = growl;
}

// ---- the participant's form ---------------------------------------------------------------

function alertBox(kind, text) {
  const box = h("alert", { class: "bids-form-alert alert-" + kind }, text);
  $("bid-alerts").append(box);
  setTimeout(() => box.remove(), ALERT_MS);
}

/** A new post or withdrawal: the messages of the one before give way to what it says. */
function newMessages() {
  $("bid-alerts").replaceChildren();
}

function setBidding(allowed) {
  view.allowBidding = allowed;
  $("bid-amount-input").disabled = !allowed;
  $("place-bid-button").hidden = !allowed;
  $("clear-bid-button").hidden = !allowed;
  $("edit-bid-button").hidden = allowed;
  $("cancel-bid-button").hidden = allowed;
}

function drawForm() {
  const me = view.state.participant;
  const form = $("BidsForm");
  const open = Boolean(me && me.turn && view.state.status === "running");
  const key = open ? String(view.state.stage.index) : "";
  if (key !== view.stageKey) {
    // Every stage switch resets the form; a post already made in this turn is restored.
    view.stageKey = key;
    $("bid-alerts").replaceChildren();
    const posted = open && typeof me.posted === "number";
    $("bid-amount-input").value = posted ? money(me.posted) : "";
    setBidding(!posted);
  }
  if (!open) {
    // Removed, not hidden: the form names a bid only during the participant's own turn.
    if (!form.hidden) form.hidden = true;
    return;
  }
  form.hidden = false;
  $("max_bid_amount_price").textContent = money(me.max);
}

async function post(amount) {
  const answer = await fetch(BASE + "/bids" + CREDENTIALS, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ data: { bid: Number.isNaN(amount) ? null : amount } }),
  }).catch(() => null);
  if (!answer) {
    alertBox("danger", "Не вдається зробити ставку. Перевірте, що в переглядачі відкрито не більше 2-ох аукціонів.");
    return false;
  }
  const body = await answer.json().catch(() => null);
  if (answer.status !== 200) {
    const errors = (body && body.errors) || [];
    for (const e of errors.length ? errors : [{ description: String(answer.status) }]) {
      alertBox("danger", REFUSALS[e.description] || e.description);
    }
    return false;
  }
  return true;
}

async function placeBid(event) {
  event.preventDefault();
  newMessages();
  const amount = amountOf($("bid-amount-input").value);
  const others = (view.state.results || []).filter((r) => r.place !== view.state.participant.place);
  if (others.some((r) => r.amount === amount)) {
    alertBox("warning", "Подана вами пропозиція співпадає з пропозицією іншого учасника. Його пропозиція розглядатиметься першою, оскільки вона подана раніше.");
  }
  if (await post(amount)) {
    alertBox("success", "Заявку прийнято");
    const max = view.state.participant.max;
    if (amount <= 0.1 * max) alertBox("warning", "Ви ввели дуже малу суму, ви впевнені?");
    setBidding(false);
  }
  refresh();
}

async function cancelBid() {
  newMessages();
  if (await post(-1)) {
    alertBox("success", "Заявку відмінено");
    $("bid-amount-input").value = "";
    setBidding(true);
  }
  refresh();
}

// ---- the loop -----------------------------------------------------------------------------

async function refresh() {
  const answer = await fetch(BASE + "/state" + CREDENTIALS, { headers: { Accept: "application/json" }, cache: "no-store" }).catch(() => null);
  const body = answer && (await answer.json().catch(() => null));
  if (!answer || answer.status !== 200 || !body) {
    const e = body && body.errors && body.errors[0];
    showProblem("Аукціон недоступний: " + (e ? e.description : answer ? answer.status : "немає відповіді"));
    return;
  }
  showProblem("");
  view.state = body.data;
  view.fetchedAt = performance.now();
  view.serverNow = ms(body.data.now);
  drawHeader();
  drawBody();
  if (PARTICIPANT) drawForm();
}

function enter() {
  $("consent").remove();
  $("header").hidden = false;
  $("auction").hidden = false;
  refresh();
  setInterval(refresh, REFRESH_MS);
  setInterval(() => view.state && drawHeader(), 250);
}

function start() {
  $("BidsForm").addEventListener("submit", placeBid);
  $("clear-bid-button").addEventListener("click", () => { $("bid-amount-input").value = ""; });
  $("edit-bid-button").addEventListener("click", () => setBidding(true));
  $("cancel-bid-button").addEventListener("click", cancelBid);
  if (!PARTICIPANT || localStorage.getItem(CONSENT) === "yes") {
    enter();
    return;
  }
  $("consent").hidden = false;
  $("consent-yes").addEventListener("click", () => { localStorage.setItem(CONSENT, "yes"); enter(); });
  $("consent-no").addEventListener("click", () => { location.replace(BASE); });
}

start();
