/** The inspector's one page: server-rendered HTML, a small script, no build step. */

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:10px 18px;display:flex;gap:12px;align-items:baseline}
header h1{font-size:17px;margin:0}header span{opacity:.7;font-size:12px}
main{display:grid;grid-template-columns:250px 1fr;gap:16px;padding:16px}
aside,section{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:12px}
aside h2,section h2{font-size:13px;text-transform:uppercase;letter-spacing:.04em;margin:0 0 8px;color:#5a6478}
#namespaces{list-style:none;margin:0;padding:0}#namespaces li{margin:2px 0}
#namespaces button{width:100%;text-align:left;border:0;background:none;padding:5px 6px;border-radius:4px;cursor:pointer;font:inherit;display:flex;justify-content:space-between}
#namespaces button:hover,#namespaces button.active{background:#e8eefc}
.count{color:#5a6478;font-size:12px}
form{display:flex;gap:6px;margin-bottom:10px}input{flex:1;min-width:0;padding:6px 8px;border:1px solid #c6ccd6;border-radius:4px;font:inherit}
button.act{padding:6px 10px;border:1px solid #c6ccd6;border-radius:4px;background:#fff;cursor:pointer;font:inherit}
button.danger{border-color:#d9534f;color:#b52b27}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:6px;border-bottom:1px solid #eceff3;vertical-align:top}
th{font-size:12px;color:#5a6478;font-weight:600}td.text{max-width:420px}
.src{font-size:11px;padding:1px 6px;border-radius:8px;background:#eceff3}.src.extractor{background:#e3f4e8}.src.tool{background:#fff1d6}
.muted{color:#8a93a5}#status{min-height:18px;color:#5a6478;font-size:12px;margin-top:6px}
.toolbar{display:flex;justify-content:space-between;align-items:center;margin-bottom:8px}
`;

const SCRIPT = `
const api = (p, init = {}) => {
  const key = sessionStorage.getItem("lgmKey");
  const headers = Object.assign({ "content-type": "application/json" }, init.headers || {});
  if (key) headers["x-api-key"] = key;
  return fetch(p, Object.assign({}, init, { headers })).then(async (r) => {
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.message || body.error || r.statusText);
    return body;
  });
};
const m = location.hash.match(/key=([^&]+)/);
if (m) { sessionStorage.setItem("lgmKey", decodeURIComponent(m[1])); history.replaceState(null, "", location.pathname); }
let current = null;
const $ = (id) => document.getElementById(id);
const dotted = (ns) => ns.join(".");
const status = (t) => { $("status").textContent = t; };
function ttl(ms) {
  if (ms === null) return "never";
  if (ms === undefined) return "?";
  const min = Math.round(ms / 60000);
  return min >= 1440 ? Math.round(min / 1440) + " d" : min >= 60 ? Math.round(min / 60) + " h" : min + " min";
}
async function loadNamespaces() {
  const { namespaces } = await api("inspector/api/namespaces");
  const ul = $("namespaces"); ul.textContent = "";
  for (const n of namespaces) {
    const li = document.createElement("li"); const b = document.createElement("button");
    b.dataset.ns = JSON.stringify(n.namespace);
    b.append(dotted(n.namespace)); const c = document.createElement("span"); c.className = "count"; c.textContent = n.items; b.append(c);
    if (current && dotted(current) === dotted(n.namespace)) b.className = "active";
    b.onclick = () => pick(n.namespace); li.append(b); ul.append(li);
  }
  if (!namespaces.length) ul.innerHTML = '<li class="muted">no memories yet</li>';
}
async function pick(ns) {
  current = ns; $("nsinput").value = dotted(ns); $("title").textContent = dotted(ns);
  $("query").value = ""; $("forget").disabled = false;
  for (const b of document.querySelectorAll("#namespaces button")) b.classList.toggle("active", b.dataset.ns === JSON.stringify(ns));
  await loadMemories();
}
async function loadMemories() {
  if (!current) return;
  const q = $("query").value.trim();
  const params = new URLSearchParams({ namespace: JSON.stringify(current), limit: "100" });
  if (q) params.set("query", q);
  const { memories } = await api("inspector/api/memories?" + params);
  const tb = $("rows"); tb.textContent = "";
  $("scorehead").style.display = q ? "" : "none";
  for (const mem of memories) {
    const tr = document.createElement("tr"); tr.dataset.key = mem.key;
    const td = (t, cls) => { const d = document.createElement("td"); d.textContent = t; if (cls) d.className = cls; tr.append(d); return d; };
    if (q) td(mem.score === undefined ? "-" : mem.score.toFixed(3), "score");
    td(mem.text, "text"); td(mem.key, "key muted");
    const s = td("", ""); const badge = document.createElement("span"); badge.className = "src " + mem.source; badge.textContent = mem.source; s.append(badge);
    td(new Date(mem.createdAt).toLocaleString()); td(new Date(mem.updatedAt).toLocaleString()); td(ttl(mem.ttlLeftMs), "ttl");
    const a = td(""); const del = document.createElement("button"); del.className = "act danger"; del.textContent = "Delete";
    del.onclick = async () => { await api("inspector/api/memories", { method: "DELETE", body: JSON.stringify({ namespace: mem.namespace, key: mem.key }) }); await loadMemories(); await loadNamespaces(); status("deleted " + mem.key); };
    a.append(del); tb.append(tr);
  }
  status(memories.length + (q ? " results for \\u201c" + q + "\\u201d" : " memories"));
}
$("nsform").onsubmit = (e) => { e.preventDefault(); const v = $("nsinput").value.trim(); if (v) pick(v.startsWith("[") ? JSON.parse(v) : v.split(".")); };
$("searchform").onsubmit = (e) => { e.preventDefault(); loadMemories().catch((err) => status(err.message)); };
$("forget").onclick = async () => {
  if (!current) return;
  const typed = prompt("This erases every memory under " + dotted(current) + ", their kept versions and their extraction and episode cursors, and purges them from disk. Type the namespace to confirm:");
  if (typed !== dotted(current)) { status("not confirmed; nothing was deleted"); return; }
  const r = await api("inspector/api/forget", { method: "POST", body: JSON.stringify({ namespace: current, confirm: typed }) });
  await loadNamespaces(); await loadMemories();
  status("forgot " + dotted(current) + ": " + r.memories + " memories, " + r.cursors + " cursors");
};
window.addEventListener("error", (e) => status(e.message));
window.addEventListener("unhandledrejection", (e) => status(e.reason && e.reason.message));
loadNamespaces().catch((err) => status(err.message));
`;

/** The page, with the namespace list rendered on the server. */
export function renderPage(options: { title: string; namespaces: { namespace: string[]; items: number }[] }): string {
  const items = options.namespaces
    .map((n) => `<li><button data-ns="${escape(JSON.stringify(n.namespace))}">${escape(n.namespace.join("."))}<span class="count">${n.items}</span></button></li>`)
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(options.title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><style>${STYLE}</style></head>
<body><header><h1>${escape(options.title)}</h1><span>memory inspector</span></header>
<main><aside><h2>Namespaces</h2>
<form id="nsform"><input id="nsinput" placeholder="users.42" aria-label="namespace"><button class="act">Open</button></form>
<ul id="namespaces">${items || '<li class="muted">no memories yet</li>'}</ul></aside>
<section><div class="toolbar"><h2 id="title">Pick a namespace or user</h2><button id="forget" class="act danger" disabled>Forget this user…</button></div>
<form id="searchform"><input id="query" placeholder="search by meaning" aria-label="search"><button class="act">Search</button></form>
<table><thead><tr><th id="scorehead" style="display:none">Score</th><th>Memory</th><th>Key</th><th>Source</th><th>Created</th><th>Updated</th><th>TTL left</th><th></th></tr></thead>
<tbody id="rows"></tbody></table><div id="status"></div></section></main>
<script>${SCRIPT}</script></body></html>`;
}
