/**
 * The inspector's client core (served inside `/inspector/app.js`): the API
 * call with the admin key from `sessionStorage`, the view switcher, the
 * confirm dialog and small DOM helpers. Every text reaches the page through
 * `textContent`, never `innerHTML`. Views register with `LGM.view(id, { show })`.
 */
export const CORE_JS = String.raw`
"use strict";
var KEY_SLOT = "lgm.inspector.apiKey";
var VIEW_SLOT = "lgm.inspector.view";
var $ = function (id) { return document.getElementById(id); };

/** Builds an element; text only through textContent. */
function el(tag, props, children) {
  var e = document.createElement(tag);
  if (props) for (var k in props) {
    if (k === "text") e.textContent = props[k];
    else if (k === "class") e.className = props[k];
    else if (k === "on") for (var ev in props.on) e.addEventListener(ev, props.on[ev]);
    else if (k === "data") for (var d in props.data) e.dataset[d] = props.data[d];
    else if (props[k] !== undefined && props[k] !== null && props[k] !== false) e.setAttribute(k, props[k] === true ? "" : String(props[k]));
  }
  (children || []).forEach(function (c) { if (c !== null && c !== undefined) e.append(c); });
  return e;
}

function getKey() { try { return sessionStorage.getItem(KEY_SLOT) || ""; } catch (e) { return ""; } }
/** What the server last said of the key in use: "" (nothing against it), "refused" (401) or "not admin" (403). */
var keyVerdict = "";
function setKey(k) { keyVerdict = ""; if (k) sessionStorage.setItem(KEY_SLOT, k); else sessionStorage.removeItem(KEY_SLOT); showKeyState(); }
function showKeyState() {
  var s = $("keystate"); var on = !!getKey();
  s.textContent = !on ? "no key" : keyVerdict === "refused" ? "key refused by the server (401): enter the right one" : keyVerdict === "not admin" ? "key in use, not an admin key (403)" : "key in use (this tab only)";
  s.className = !on ? "" : keyVerdict ? "refused" : "on";
  $("clearkey").hidden = !on;
}

/** A refused request (401/403): the views show it as a notice, not as "no memories". */
function AccessRefused(status, message) { this.status = status; this.message = message; this.name = "AccessRefused"; }

async function api(path, init) {
  init = init || {};
  var headers = { accept: "application/json" };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  var key = getKey();
  if (key) headers["x-api-key"] = key;
  var r = await fetch(path, { method: init.method || "GET", headers: headers, body: init.body === undefined ? undefined : JSON.stringify(init.body), cache: "no-store", credentials: "same-origin" });
  var body = await r.json().catch(function () { return {}; });
  if (r.status === 401 || r.status === 403) {
    if (key) { keyVerdict = r.status === 401 ? "refused" : "not admin"; showKeyState(); }
    throw new AccessRefused(r.status, body.message || r.statusText);
  }
  if (!r.ok) throw new Error(body.message || body.error || ("HTTP " + r.status));
  return body;
}
function query(params) {
  var q = new URLSearchParams();
  for (var k in params) if (params[k] !== undefined && params[k] !== null && params[k] !== "") q.set(k, String(params[k]));
  return q.toString();
}

/** The status line; with "action" ({ label, run }) a button after the text (e.g. Undo). */
function status(text, action) {
  var p = $("status");
  p.textContent = text || "";
  if (action) {
    var b = el("button", { type: "button", class: "act", id: "status-action", text: action.label });
    b.addEventListener("click", function () { b.disabled = true; Promise.resolve(action.run()).catch(function (err) { status(err.message); }); });
    p.append(" ", b);
  }
}

/** Shows why a view has nothing to show: a refusal (with what to do) or an error. */
function showProblem(box, err) {
  box.textContent = "";
  box.hidden = false;
  if (err instanceof AccessRefused) {
    box.className = "notice refused";
    var head = getKey()
      ? (err.status === 403 ? "This key is not an admin key: the server refused it (403)." : "The server refused this key (401).")
      : "This server needs an admin key \u2014 enter it above.";
    box.append(el("strong", { text: head }), el("span", { text: (getKey() ? "Enter the server's admin API key above. " : "The inspector sees every user's memories, so it needs the key the server was started with (--api-key). ") + "Server said: " + err.message }));
    $("apikey").focus();
  } else {
    box.className = "notice";
    box.append(el("strong", { text: "Something went wrong" }), el("span", { text: String(err && err.message || err) }));
  }
}
function clearProblem(box) { box.hidden = true; box.textContent = ""; }

var dotted = function (ns) { return ns.join("."); };
function when(iso) { if (!iso) return "\u2013"; var d = new Date(iso); return isNaN(d.getTime()) ? String(iso) : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }); }
function ttl(ms) {
  if (ms === null) return "never";
  if (ms === undefined) return "?";
  var min = Math.round(ms / 60000);
  if (min < 60) return min + " min";
  var h = Math.floor(min / 60), m = min % 60;
  if (h < 48) return h + " h" + (m ? " " + m + " min" : "");
  return Math.floor(h / 24) + " d" + (h % 24 ? " " + (h % 24) + " h" : "");
}
function range(offset, shown, total, complete, noun) {
  if (total === 0) return "0 " + noun;
  return (offset + 1) + "\u2013" + (offset + shown) + " of " + (complete ? "" : "at least ") + total + " " + noun;
}

/** The confirm dialog: resolves true only when the user confirms (Escape and Cancel resolve false). */
function confirmDialog(o) {
  return new Promise(function (resolve) {
    var d = $("confirm-dialog"), ok = $("confirm-ok"), input = $("confirm-typed");
    $("confirm-title").textContent = o.title;
    $("confirm-message").textContent = o.message || "";
    var details = $("confirm-details"); details.textContent = "";
    (o.details || []).forEach(function (t) { details.append(el("li", { text: t })); });
    details.hidden = !(o.details && o.details.length);
    $("confirm-note").textContent = o.note || "";
    $("confirm-note").className = o.danger === false ? "note" : "warn";
    ok.textContent = o.confirmLabel || "Confirm";
    ok.className = "act " + (o.danger === false ? "primary" : "primary-danger");
    var wrap = $("confirm-typed-wrap");
    if (o.typed) {
      wrap.hidden = false;
      $("confirm-typed-label").textContent = "Type " + o.typed + " to confirm";
      input.value = "";
      ok.disabled = true;
      input.oninput = function () { ok.disabled = input.value !== o.typed; };
    } else {
      wrap.hidden = true;
      ok.disabled = false;
      input.oninput = null;
    }
    var opener = document.activeElement;
    d.returnValue = "";
    d.addEventListener("close", function done() {
      d.removeEventListener("close", done);
      var yes = d.returnValue === "ok" && (!o.typed || input.value === o.typed);
      if (opener && opener.focus && document.body.contains(opener)) opener.focus();
      resolve(yes);
    });
    d.showModal();
    (o.typed ? input : ok).focus();
  });
}

/** The sidebar list of namespaces. */
function namespaceList(ul, items, active, onPick, empty) {
  ul.textContent = "";
  items.forEach(function (n) {
    var b = el("button", { type: "button", class: active && dotted(active) === dotted(n.namespace) ? "active" : "", "aria-current": active && dotted(active) === dotted(n.namespace) ? "true" : null, data: { ns: JSON.stringify(n.namespace) } },
      [el("span", { text: dotted(n.namespace) }), el("span", { class: "count", text: String(n.items) })]);
    b.addEventListener("click", function () { onPick(n.namespace); });
    ul.append(el("li", null, [b]));
  });
  if (!items.length) ul.append(el("li", { class: "muted", text: empty }));
}

var info = { keepsHistory: false, usersLabel: "users", episodesLabel: "episodes", personKey: "user_id", kinds: [] };
/** The placeholder values a namespace gives a template of the same length, else null. */
function matchTemplate(t, ns) {
  if (t.length !== ns.length) return null;
  var values = {};
  for (var i = 0; i < t.length; i++) {
    var m = /^\{([A-Za-z0-9_$-]+)\}$/.exec(t[i]);
    if (m) values[m[1]] = decodeURIComponent(ns[i].replace(/%(?![0-9A-F]{2})/g, "%25"));
    else if (t[i] !== ns[i]) return null;
  }
  return values;
}
/** The user id of a person's namespace (of any kind the server's layout names), else undefined. */
function personOf(ns) {
  var kinds = info.kinds.length ? info.kinds : [{ namespace: [info.usersLabel, "{user_id}"] }, { namespace: [info.episodesLabel, "{user_id}"] }];
  for (var i = 0; i < kinds.length; i++) {
    var v = matchTemplate(kinds[i].namespace, ns);
    if (v && v[info.personKey] !== undefined) return v[info.personKey];
  }
  return undefined;
}
var KIND_WORDS = { memories: "every memory", episodes: "every conversation", procedures: "every learned instruction and its feedback, for every agent," };

/** "Forget": a typed confirmation (the user id, or the namespace), then the erasure. Resolves true when it ran. */
async function forget(ns) {
  var person = personOf(ns);
  var typed = person === undefined ? dotted(ns) : person;
  var what = person === undefined
    ? ["every item under " + dotted(ns), "their kept versions (history) and cursors"]
    : info.kinds.map(function (k) { return (KIND_WORDS[k.view] || "every item") + " (" + k.name + ") of " + person; }).concat(["their kept versions (history) and cursors"]);
  var yes = await confirmDialog({
    title: person === undefined ? "Forget namespace " + dotted(ns) + "?" : "Forget user " + person + "?",
    message: "This erases from the store and from its files:",
    details: what,
    note: "It cannot be undone.",
    typed: typed,
    confirmLabel: "Forget",
  });
  if (!yes) { status("not confirmed; nothing was deleted"); return false; }
  var r = await api("inspector/api/forget", { method: "POST", body: { namespace: ns, confirm: typed } });
  status("forgot " + (person === undefined ? dotted(ns) : "user " + person) + ": " + r.memories + " memories, " + r.episodes + " conversation turns, " + (r.procedures ? r.procedures + " learned instructions and feedback, " : "") + r.history + " kept versions, " + r.cursors + " cursors");
  return true;
}

var views = {};
var current = null;
/** Registers a view: a nav button with data-view=id and a section with id "view-" + id. */
function view(id, v) { views[id] = v; }
function show(id) {
  if (!views[id]) id = "memories";
  if (current !== null && current !== id) status("");
  current = id;
  try { sessionStorage.setItem(VIEW_SLOT, id); } catch (e) {}
  document.querySelectorAll("nav.views button").forEach(function (b) { if (b.dataset.view === id) b.setAttribute("aria-current", "page"); else b.removeAttribute("aria-current"); });
  document.querySelectorAll("section.view").forEach(function (s) { s.hidden = s.id !== "view-" + id; });
  views[id].show().catch(function (err) { status(err.message); });
}
function reload() { loadInfo().finally(function () { show(current || "memories"); }); }
async function loadInfo() {
  try { var i = await api("inspector/api/info"); info.keepsHistory = !!i.keepsHistory; info.usersLabel = i.usersLabel || "users"; info.episodesLabel = i.episodesLabel || "episodes"; info.personKey = i.personKey || "user_id"; info.kinds = Array.isArray(i.kinds) ? i.kinds : []; } catch (e) { /* the views show a refusal */ }
}

var LGM = { el: el, api: api, query: query, status: status, showProblem: showProblem, clearProblem: clearProblem, dotted: dotted, when: when, ttl: ttl, range: range,
  confirm: confirmDialog, namespaceList: namespaceList, forget: forget, personOf: personOf, info: info, view: view, show: show, reload: reload, AccessRefused: AccessRefused };

/** A key in the address would stay in history and logs: never take it from there, and remove it. */
function dropKeyFromAddress() {
  if (/key=/.test(location.hash) || /[?&]key=/.test(location.search)) {
    history.replaceState(null, "", location.pathname);
    status("a key in the address is ignored and was removed from it; enter the key in the field above (it is kept for this tab only)");
  }
}

function start() {
  dropKeyFromAddress();
  window.addEventListener("hashchange", dropKeyFromAddress);
  $("keyform").addEventListener("submit", function (e) {
    e.preventDefault();
    var v = $("apikey").value.trim();
    if (!v) { $("apikey").focus(); return; }
    setKey(v); $("apikey").value = "";
    status("key set for this tab; loading\u2026");
    reload();
  });
  $("clearkey").addEventListener("click", function () { setKey(""); status("key removed from this tab"); reload(); });
  document.querySelectorAll("nav.views button").forEach(function (b) { b.addEventListener("click", function () { show(b.dataset.view); }); });
  showKeyState();
  var first = null; try { first = sessionStorage.getItem(VIEW_SLOT); } catch (e) {}
  loadInfo().finally(function () { show(first || "memories"); });
}
window.addEventListener("error", function (e) { status(e.message); });
window.addEventListener("unhandledrejection", function (e) { status(e.reason && e.reason.message || String(e.reason)); });
`;

/** Runs after every view's script: starts the page. */
export const START_JS = String.raw`
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
`;
