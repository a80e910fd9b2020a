/**
 * The inspector's "Procedures" panel: its own markup, style and script,
 * appended to the page, talking only to `/inspector/api/procedures…`. All
 * text is set with textContent (learned instructions may hold anything).
 */

const STYLE = `
#procedures{margin:0 16px 16px;background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:12px}
#procedures h2{font-size:13px;text-transform:uppercase;letter-spacing:.04em;margin:0 0 8px;color:#5a6478}
#proc-grid{display:grid;grid-template-columns:250px 1fr;gap:16px}
#proc-agents{list-style:none;margin:0;padding:0}#proc-agents button{border:0;background:none;padding:4px 6px;cursor:pointer;font:inherit;text-align:left;width:100%;border-radius:4px}
#proc-agents button:hover,#proc-agents button.active{background:#e8eefc}
#proc-current,#proc-diff{white-space:pre-wrap;background:#f5f6f8;border-radius:4px;padding:8px;font:12px/1.4 ui-monospace,monospace;margin:6px 0}
#proc-diff .add{color:#1e7b34}#proc-diff .del{color:#b52b27}
#proc-status{min-height:18px;color:#5a6478;font-size:12px}
`;

const SCRIPT = `
(() => {
  const call = (p, init = {}) => {
    const key = sessionStorage.getItem("lgmKey");
    const headers = Object.assign({ "content-type": "application/json" }, init.headers || {});
    if (key) headers["x-api-key"] = key;
    return fetch(p, Object.assign({}, init, { headers })).then(async (r) => {
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.message || body.error || r.statusText);
      return body;
    });
  };
  const el = (id) => document.getElementById(id);
  const say = (t) => { el("proc-status").textContent = t; };
  const make = (tag, text, cls) => { const e = document.createElement(tag); if (text !== undefined) e.textContent = text; if (cls) e.className = cls; return e; };
  let scope = null;
  const query = (extra) => new URLSearchParams(Object.assign({ agent: scope.agent }, scope.user ? { user: scope.user } : {}, extra || {}));
  async function agents() {
    const { agents } = await call("inspector/api/procedures");
    const ul = el("proc-agents"); ul.textContent = "";
    if (!agents.length) { ul.append(make("li", "no learned instructions", "muted")); return; }
    for (const a of agents) {
      const scopes = (a.agentWide ? [{ agent: a.agentId }] : []).concat(a.users.map((u) => ({ agent: a.agentId, user: u })));
      for (const s of scopes) {
        const li = make("li"); const b = make("button", s.user ? a.agentId + " \\u00b7 " + s.user : a.agentId + " (agent)");
        b.dataset.scope = JSON.stringify(s); b.onclick = () => open(s).catch((e) => say(e.message)); li.append(b); ul.append(li);
      }
    }
  }
  async function open(s) {
    scope = s;
    for (const b of document.querySelectorAll("#proc-agents button")) b.classList.toggle("active", b.dataset.scope === JSON.stringify(s));
    const { history } = await call("inspector/api/procedures/history?" + query());
    el("proc-title").textContent = s.user ? s.agent + " for " + s.user : s.agent;
    el("proc-current").textContent = history.length ? history[0].instructions : "";
    el("proc-diff").textContent = "";
    const tb = el("proc-rows"); tb.textContent = "";
    for (const r of history) {
      const tr = make("tr"); tr.dataset.version = r.version;
      tr.append(make("td", String(r.version)), make("td", new Date(r.changedAt).toLocaleString()), make("td", r.source + (r.restoredFrom ? " of v" + r.restoredFrom : "")), make("td", "+" + r.diff.added + "/-" + r.diff.removed), make("td", r.reason, "text"));
      const td = make("td");
      if (r !== history[0]) {
        const d = make("button", "Diff", "act"); d.onclick = () => diff(r.version).catch((e) => say(e.message));
        const x = make("button", "Restore", "act danger"); x.onclick = () => restore(r.version).catch((e) => say(e.message));
        td.append(d, x);
      } else td.append(make("span", "current", "muted"));
      tr.append(td); tb.append(tr);
    }
    say(history.length + " versions");
  }
  async function diff(v) {
    const d = await call("inspector/api/procedures/diff?" + query({ from: String(v) }));
    const box = el("proc-diff"); box.textContent = "";
    box.append(make("div", "version " + d.from + " \\u2192 " + d.to, "muted"));
    for (const l of d.lines) box.append(make("div", l.op + " " + l.text, l.op === "+" ? "add" : l.op === "-" ? "del" : ""));
  }
  async function restore(v) {
    if (!confirm("Restore version " + v + "? It becomes a new version; nothing is lost.")) { say("not restored"); return; }
    const r = await call("inspector/api/procedures/restore", { method: "POST", body: JSON.stringify(Object.assign({ version: v }, scope)) });
    await open(scope); say("restored version " + v + " as version " + r.record.version);
  }
  agents().catch((e) => say(e.message));
})();
`;

/** The panel's markup, style and script, to append to the inspector's `<body>`. */
export const PROCEDURES_PANEL = `<style>${STYLE}</style>
<section id="procedures"><h2>Procedures (learned instructions)</h2><div id="proc-grid">
<ul id="proc-agents"></ul>
<div><h2 id="proc-title">Pick an agent</h2><div id="proc-current"></div>
<table><thead><tr><th>Version</th><th>Changed</th><th>Source</th><th>+/-</th><th>Reason</th><th></th></tr></thead><tbody id="proc-rows"></tbody></table>
<div id="proc-diff"></div><div id="proc-status"></div></div></div></section>
<script>${SCRIPT}</script>`;
