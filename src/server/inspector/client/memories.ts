/** The Memories view: namespaces, a paged, sorted, filtered table, and a detail panel with the JSON and history. */

export const MEMORIES_HTML = String.raw`<div class="layout" id="mem-layout">
<aside class="panel" aria-labelledby="ns-head"><h2 id="ns-head">Namespaces</h2>
<label class="sr" for="ns-filter">Filter namespaces</label><input id="ns-filter" type="search" placeholder="filter namespaces" autocomplete="off">
<ul id="namespaces" class="nslist"></ul>
<form id="nsform" class="inline"><label class="sr" for="nsinput">Open a namespace</label><input id="nsinput" placeholder="users.42" autocomplete="off"><button class="act">Open</button></form>
</aside>
<div class="panel" id="mem-main">
<div class="toolbar"><h2 id="mem-title" tabindex="-1">Pick a namespace</h2><button type="button" id="forget" class="act danger" hidden>Forget user…</button></div>
<div id="mem-notice" class="notice" role="alert" hidden></div>
<p id="mem-hint" class="muted">Pick a namespace on the left, or open one by name (users.42).</p>
<div id="mem-list" hidden>
<form id="mem-controls" class="controls">
<label class="field grow">Search by meaning<input id="query" type="search" placeholder="what food must be avoided" autocomplete="off"></label>
<label class="field grow">Filter<input id="filter" type="search" placeholder="text, key or namespace contains…" autocomplete="off"></label>
<label class="field">In<select id="field"><option value="any">text, key, namespace</option><option value="text">text</option><option value="key">key</option><option value="namespace">namespace</option></select></label>
<label class="field">Sort<select id="sort"><option value="updated-desc">updated, newest first</option><option value="updated-asc">updated, oldest first</option><option value="created-desc">created, newest first</option><option value="created-asc">created, oldest first</option><option value="key-asc">key, A–Z</option><option value="key-desc">key, Z–A</option><option value="relevance">relevance to the search</option></select></label>
<label class="field">Per page<select id="pagesize"><option>25</option><option>50</option><option>100</option></select></label>
<button class="act">Apply</button>
</form>
<div class="pager"><button type="button" class="act" id="prev">← Previous</button><span id="range" class="range" aria-live="polite"></span><button type="button" class="act" id="next">Next →</button></div>
<div class="tablewrap"><table id="memtable"><thead><tr><th id="scorehead" hidden>Score</th><th>Memory</th><th>Key</th><th>Source</th><th class="created">Created</th><th>Updated</th><th>TTL left</th><th><span class="sr">Actions</span></th></tr></thead>
<tbody id="rows"></tbody></table></div>
</div>
</div>
<aside class="panel" id="detail" aria-labelledby="detail-title" hidden>
<div class="detail-head"><h2 id="detail-title" tabindex="-1">Memory</h2><button type="button" class="act" id="detail-close">Close</button></div>
<p id="detail-gone" class="notice" hidden>This memory is gone (deleted or expired); its kept versions are below.</p>
<dl class="meta" id="detail-meta"></dl>
<h3>Value as JSON</h3><pre class="json" id="detail-json" tabindex="0"></pre>
<button type="button" class="act" id="copyjson">Copy JSON</button>
<h3>History</h3><p id="history-note" class="muted"></p><ol class="history" id="history"></ol>
</aside>
</div>`;

export const MEMORIES_JS = String.raw`
(function () {
  var s = { ns: null, offset: 0, limit: 25, total: 0, namespaces: [], selected: null, opener: null, asked: "" };
  var timer = null, seq = 0;

  function params() {
    var q = $("query").value.trim();
    var sort = $("sort").value;
    if (!q && sort === "relevance") sort = $("sort").value = "updated-desc";
    return { namespace: JSON.stringify(s.ns), offset: s.offset, limit: s.limit, query: q, filter: $("filter").value.trim(), field: $("field").value, sort: sort };
  }

  async function loadNamespaces() {
    var ul = $("namespaces");
    try {
      var r = await LGM.api("inspector/api/namespaces");
      s.namespaces = r.namespaces.filter(function (n) { return n.kind !== "episodes"; });
      LGM.clearProblem($("mem-notice"));
      $("mem-list").hidden = !s.ns; $("mem-hint").hidden = !!s.ns; $("forget").hidden = !s.ns;
      renderNamespaces();
      return true;
    } catch (err) {
      ul.textContent = "";
      ul.append(LGM.el("li", { class: "muted", text: err instanceof LGM.AccessRefused ? "access refused" : "could not load" }));
      LGM.showProblem($("mem-notice"), err);
      $("rows").textContent = ""; $("range").textContent = ""; $("forget").hidden = true; $("mem-list").hidden = true; $("mem-hint").hidden = true;
      return false;
    }
  }
  function renderNamespaces() {
    var f = $("ns-filter").value.trim().toLowerCase();
    var shown = s.namespaces.filter(function (n) { return !f || LGM.dotted(n.namespace).toLowerCase().indexOf(f) >= 0; });
    LGM.namespaceList($("namespaces"), shown, s.ns, pick, s.namespaces.length ? "no namespace matches" : "no memories yet");
  }

  async function pick(ns) {
    s.ns = ns; s.offset = 0; closeDetail(false);
    $("nsinput").value = LGM.dotted(ns);
    $("mem-title").textContent = LGM.dotted(ns);
    var person = LGM.personOf(ns);
    $("forget").hidden = false; $("mem-list").hidden = false; $("mem-hint").hidden = true;
    $("forget").textContent = person === undefined ? "Forget namespace…" : "Forget user " + person + "…";
    renderNamespaces();
    await loadMemories();
  }

  async function loadMemories() {
    if (!s.ns) return;
    var p = params();
    var my = ++seq, asked = listKey();
    var r;
    try { r = await LGM.api("inspector/api/memories?" + LGM.query(p)); }
    catch (err) { if (my !== seq) return; if (err instanceof LGM.AccessRefused) LGM.showProblem($("mem-notice"), err); else LGM.status(err.message); return; }
    if (my !== seq) return; // a later request owns the table
    s.asked = asked;
    LGM.clearProblem($("mem-notice"));
    if (r.memories.length === 0 && r.total > 0 && s.offset > 0) { s.offset = Math.max(0, Math.floor((r.total - 1) / s.limit) * s.limit); return loadMemories(); }
    s.total = r.total;
    var tb = $("rows"); tb.textContent = "";
    var scored = !!p.query;
    $("scorehead").hidden = !scored;
    r.memories.forEach(function (m) {
      var tr = LGM.el("tr", { data: { key: m.key, ns: JSON.stringify(m.namespace) }, class: s.selected && s.selected.key === m.key && LGM.dotted(s.selected.namespace) === LGM.dotted(m.namespace) ? "selected" : "" });
      var td = function (t, cls) { var d = LGM.el("td", { class: cls, text: t }); tr.append(d); return d; };
      if (scored) td(m.score === undefined ? "-" : m.score.toFixed(3), "score");
      td(m.text, "text");
      td(LGM.dotted(m.namespace) === LGM.dotted(s.ns) ? m.key : LGM.dotted(m.namespace.slice(s.ns.length)) + " / " + m.key, m.key.length > 24 ? "key long" : "key");
      td("", "srccell").append(LGM.el("span", { class: "src " + String(m.source).replace(/[^a-z0-9_-]/gi, ""), text: m.source }));
      td(LGM.when(m.createdAt), "when created").title = m.createdAt; td(LGM.when(m.updatedAt), "when updated").title = m.updatedAt;
      td(LGM.ttl(m.ttlLeftMs), "ttl").title = m.expiresAt ? "expires " + m.expiresAt : "";
      var a = td("", "actions");
      a.append(LGM.el("button", { type: "button", class: "act details", "aria-label": "JSON and history of " + m.key, text: "Details", on: { click: function (e) { openDetail(m.namespace, m.key, e.currentTarget); } } }));
      a.append(LGM.el("button", { type: "button", class: "act danger delete", "aria-label": "Delete " + m.key, text: "Delete…", on: { click: function () { remove(m); } } }));
      tb.append(tr);
    });
    if (r.memories.length === 0) tb.append(LGM.el("tr", null, [LGM.el("td", { colspan: "8", class: "muted", text: p.filter || p.query ? "nothing matches" : "no memories in this namespace" })]));
    $("range").textContent = LGM.range(r.offset, r.memories.length, r.total, r.complete, "memories") + (r.total > s.limit ? " \u00b7 page " + (Math.floor(r.offset / s.limit) + 1) + " of " + Math.ceil(r.total / s.limit) : "");
    $("prev").disabled = r.offset === 0;
    $("next").disabled = r.offset + r.memories.length >= r.total;
    LGM.status(p.query ? r.total + " results for \u201c" + p.query + "\u201d" : "");
  }

  async function remove(m) {
    var yes = await LGM.confirm({
      title: "Delete this memory?",
      message: m.text,
      details: ["key: " + m.key, "namespace: " + LGM.dotted(m.namespace)],
      note: LGM.info.keepsHistory ? "The store keeps its current value in the memory's history, where it can be restored." : "This cannot be undone: this store keeps no history of deleted memories.",
      confirmLabel: "Delete",
    });
    if (!yes) { LGM.status("not deleted"); return; }
    await LGM.api("inspector/api/memories", { method: "DELETE", body: { namespace: m.namespace, key: m.key } });
    if (s.selected && s.selected.key === m.key) closeDetail(false);
    await loadMemories(); await loadNamespaces();
    LGM.status("deleted " + m.key, LGM.info.keepsHistory ? { label: "Undo", run: function () { return undoDelete(m); } } : undefined);
  }

  /** Puts back the version the store kept when "m" was deleted. */
  async function undoDelete(m) {
    var r = await LGM.api("inspector/api/memory?" + LGM.query({ namespace: JSON.stringify(m.namespace), key: m.key }));
    var kept = r.history.filter(function (v) { return v.op === "delete"; })[0];
    if (r.memory || !kept) { LGM.status("nothing to undo: " + m.key + (r.memory ? " exists again" : " has no kept version")); return; }
    await LGM.api("inspector/api/restore", { method: "POST", body: { namespace: m.namespace, key: m.key, version: kept.version } });
    await loadMemories(); await loadNamespaces();
    LGM.status("restored " + m.key);
  }

  function meta(dl, rows) {
    dl.textContent = "";
    rows.forEach(function (r) { dl.append(LGM.el("dt", { text: r[0] }), LGM.el("dd", { text: r[1] })); });
  }

  async function openDetail(ns, key, opener) {
    s.selected = { namespace: ns, key: key };
    if (opener) s.opener = opener;
    var r = await LGM.api("inspector/api/memory?" + LGM.query({ namespace: JSON.stringify(ns), key: key }));
    $("detail").hidden = false;
    document.querySelectorAll("#rows tr").forEach(function (tr) { tr.classList.toggle("selected", tr.dataset.key === key && tr.dataset.ns === JSON.stringify(ns)); });
    var m = r.memory;
    $("detail-title").textContent = "Memory " + key;
    $("detail-gone").hidden = !!m;
    meta($("detail-meta"), m ? [["namespace", LGM.dotted(m.namespace)], ["key", m.key], ["source", m.source], ["created", LGM.when(m.createdAt)], ["updated", LGM.when(m.updatedAt)],
      ["TTL left", LGM.ttl(m.ttlLeftMs)], ["expires", m.expiresAt === null ? "never" : m.expiresAt === undefined ? "unknown to this store" : LGM.when(m.expiresAt)]] : [["namespace", LGM.dotted(ns)], ["key", key]]);
    var json = m ? { namespace: m.namespace, key: m.key, value: m.value, createdAt: m.createdAt, updatedAt: m.updatedAt, expiresAt: m.expiresAt === undefined ? "unknown" : m.expiresAt, ttlLeftMs: m.ttlLeftMs === undefined ? "unknown" : m.ttlLeftMs, source: m.source } : null;
    $("detail-json").textContent = JSON.stringify(json, null, 2);
    renderHistory(ns, key, r.history, r.keepsHistory);
    $("detail-title").focus();
  }

  function renderHistory(ns, key, versions, keeps) {
    var ol = $("history"); ol.textContent = "";
    $("history-note").textContent = versions.length ? versions.length + " kept version" + (versions.length === 1 ? "" : "s") + ", newest first" : "no kept versions" + (keeps ? "" : " (this store keeps history only when the extractor or a ProtectedStore with history wrote them)");
    versions.forEach(function (v) {
      var pre = LGM.el("pre", { class: "json", hidden: true, text: JSON.stringify(v, null, 2) });
      var toggle = LGM.el("button", { type: "button", class: "act", "aria-expanded": "false", text: "Show JSON" });
      toggle.addEventListener("click", function () { pre.hidden = !pre.hidden; toggle.textContent = pre.hidden ? "Show JSON" : "Hide JSON"; toggle.setAttribute("aria-expanded", String(!pre.hidden)); });
      var restore = LGM.el("button", { type: "button", class: "act danger restore", text: "Restore…", "aria-label": "Restore version " + (v.number || v.version) });
      restore.addEventListener("click", function () { restoreVersion(ns, key, v); });
      var text = typeof v.value.text === "string" ? v.value.text : JSON.stringify(v.value);
      ol.append(LGM.el("li", { data: { version: String(v.version) } }, [
        LGM.el("div", { class: "vhead", text: "version " + (v.number || v.version) + " \u00b7 " + (v.op === "delete" ? "deleted" : "replaced") + " " + LGM.when(v.changedAt) + " by " + v.source + (v.identity ? " (" + v.identity + ")" : "") }),
        LGM.el("div", { class: "vtext", text: text }),
        LGM.el("div", { class: "vbtns" }, [toggle, restore]), pre]));
    });
  }

  async function restoreVersion(ns, key, v) {
    var text = typeof v.value.text === "string" ? v.value.text : JSON.stringify(v.value);
    var yes = await LGM.confirm({
      title: "Restore this version?",
      message: "The current value of " + key + " is replaced by the version that was " + (v.op === "delete" ? "deleted " : "replaced ") + LGM.when(v.changedAt) + " (version " + (v.number || v.version) + "):",
      details: [text],
      note: "The value it replaces is kept in the history, so this can be undone.",
      confirmLabel: "Restore",
      danger: false,
    });
    if (!yes) { LGM.status("not restored"); return; }
    await LGM.api("inspector/api/restore", { method: "POST", body: { namespace: ns, key: key, version: v.version } });
    LGM.status("restored version " + (v.number || v.version) + " of " + key);
    await loadMemories();
    await openDetail(ns, key);
  }

  function closeDetail(refocus) {
    $("detail").hidden = true;
    document.querySelectorAll("#rows tr.selected").forEach(function (tr) { tr.classList.remove("selected"); });
    s.selected = null;
    if (refocus && s.opener && document.body.contains(s.opener)) s.opener.focus();
  }

  /** What selects the list (not the page): a change to it starts again at page 1. */
  function listKey() { return JSON.stringify([s.ns, $("query").value.trim(), $("filter").value.trim(), $("field").value, $("sort").value, s.limit]); }
  function reloadFirst() { if (listKey() === s.asked) return; s.offset = 0; loadMemories(); }
  $("mem-controls").addEventListener("submit", function (e) { e.preventDefault(); s.offset = 0; loadMemories(); });
  $("filter").addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(reloadFirst, 250); });
  $("query").addEventListener("change", function () { var q = $("query").value.trim(); if (q && $("sort").value === "updated-desc") $("sort").value = "relevance"; reloadFirst(); });
  ["field", "sort"].forEach(function (id) { $(id).addEventListener("change", reloadFirst); });
  $("pagesize").addEventListener("change", function () { s.limit = Number($("pagesize").value); reloadFirst(); });
  $("prev").addEventListener("click", function () { s.offset = Math.max(0, s.offset - s.limit); loadMemories(); });
  $("next").addEventListener("click", function () { if (s.offset + s.limit < s.total) { s.offset += s.limit; loadMemories(); } });
  $("ns-filter").addEventListener("input", renderNamespaces);
  $("nsform").addEventListener("submit", function (e) {
    e.preventDefault();
    var v = $("nsinput").value.trim(); if (!v) return;
    try { pick(v.charAt(0) === "[" ? JSON.parse(v) : v.split(".")); } catch (err) { LGM.status("not a namespace: " + err.message); }
  });
  $("forget").addEventListener("click", async function () {
    if (!s.ns) return;
    if (await LGM.forget(s.ns)) { var st = $("status").textContent; closeDetail(false); await loadNamespaces(); await loadMemories(); LGM.status(st); }
  });
  $("detail-close").addEventListener("click", function () { closeDetail(true); });
  $("detail").addEventListener("keydown", function (e) { if (e.key === "Escape") { e.preventDefault(); closeDetail(true); } });
  $("copyjson").addEventListener("click", function () {
    navigator.clipboard.writeText($("detail-json").textContent).then(function () { LGM.status("JSON copied"); }, function () { LGM.status("copy failed; select the JSON and copy it"); });
  });

  LGM.view("memories", {
    show: async function () {
      if (await loadNamespaces() && s.ns) await loadMemories();
    },
  });
})();
`;
