/**
 * The inspector's "Procedures" view: an agent's learned instructions, their
 * versions, a diff and a restore (after the in-page confirmation), the
 * proposals kept for review (diff, apply or dismiss after confirmation), talking
 * only to `/inspector/api/procedures…`. All text is set with textContent
 * (learned instructions may hold anything).
 */
import type { InspectorView } from "./page.js";

const CSS = String.raw`
#proc-grid{display:grid;grid-template-columns:230px minmax(0,1fr);gap:14px;align-items:start}
#proc-agents{list-style:none;margin:0;padding:0}
#proc-agents button{border:0;background:none;padding:5px 6px;cursor:pointer;font:inherit;text-align:left;width:100%;border-radius:4px;color:inherit}
#proc-agents button:hover,#proc-agents button.active{background:#e6edfc}
#proc-current,#proc-diff{white-space:pre-wrap;background:#f5f6f8;border-radius:4px;padding:8px;font:12px/1.4 ui-monospace,monospace;margin:6px 0}
#proc-diff:empty{display:none}
#proc-diff .add{color:#1e7b34}#proc-diff .del{color:#b52b27}
#proc-status{min-height:18px;color:#5a6478;font-size:12px}
#proc-rows td.actions button+button,#proc-reviews td.actions button+button{margin-left:4px}
#proc-review-box[hidden]{display:none}
`;

const HTML = String.raw`<div id="proc-grid">
<aside class="panel" aria-labelledby="proc-head"><h2 id="proc-head">Agents</h2><ul id="proc-agents"></ul></aside>
<div class="panel">
<div id="proc-notice" class="notice" role="alert" hidden></div>
<div class="toolbar"><h2 id="proc-title">Pick an agent</h2></div>
<h3>Current instructions</h3><div id="proc-current"></div>
<div id="proc-cut" class="notice" role="status" hidden></div>
<div class="tablewrap"><table><thead><tr><th>Version</th><th>Changed</th><th>Source</th><th>+/-</th><th>Reason</th><th><span class="sr">Actions</span></th></tr></thead><tbody id="proc-rows"></tbody></table></div>
<div id="proc-review-box" hidden><h3>Waiting for review</h3>
<div class="tablewrap"><table><thead><tr><th>Kept</th><th>Why</th><th>+/-</th><th>Feedback</th><th>State</th><th><span class="sr">Actions</span></th></tr></thead><tbody id="proc-reviews"></tbody></table></div></div>
<div id="proc-diff"></div><div id="proc-status" role="status"></div>
</div></div>`;

const SCRIPT = String.raw`
(function () {
  var scope = null;
  var say = function (t) { $("proc-status").textContent = t; };
  var make = function (tag, text, cls) { return LGM.el(tag, { text: text, class: cls }); };
  var query = function (extra) { var q = { agent: scope.agent, user: scope.user }; for (var k in extra || {}) q[k] = extra[k]; return LGM.query(q); };
  async function agents() {
    var ul = $("proc-agents");
    var r;
    try { r = await LGM.api("inspector/api/procedures"); }
    catch (err) { ul.textContent = ""; LGM.showProblem($("proc-notice"), err); return; }
    LGM.clearProblem($("proc-notice"));
    ul.textContent = "";
    if (!r.agents.length) { ul.append(make("li", "no learned instructions", "muted")); return; }
    r.agents.forEach(function (a) {
      var scopes = (a.agentWide ? [{ agent: a.agentId }] : []).concat(a.users.map(function (u) { return { agent: a.agentId, user: u }; }));
      scopes.forEach(function (s) {
        var b = LGM.el("button", { type: "button", text: s.user ? a.agentId + " \u00b7 " + s.user : a.agentId + " (agent)", data: { scope: JSON.stringify(s) } });
        b.addEventListener("click", function () { open(s).catch(function (e) { say(e.message); }); });
        ul.append(LGM.el("li", null, [b]));
      });
    });
  }
  async function open(s) {
    scope = s;
    document.querySelectorAll("#proc-agents button").forEach(function (b) { b.classList.toggle("active", b.dataset.scope === JSON.stringify(s)); });
    var history = (await LGM.api("inspector/api/procedures/history?" + query())).history;
    $("proc-title").textContent = s.user ? s.agent + " for " + s.user : s.agent;
    $("proc-current").textContent = history.length ? history[0].instructions : "";
    $("proc-diff").textContent = "";
    var tb = $("proc-rows"); tb.textContent = "";
    history.forEach(function (r, i) {
      var tr = LGM.el("tr", { data: { version: String(r.version) } });
      tr.append(make("td", String(r.version)), make("td", LGM.when(r.changedAt)), make("td", r.source + (r.restoredFrom ? " of v" + r.restoredFrom : "")), make("td", "+" + r.diff.added + "/-" + r.diff.removed), make("td", r.reason, "text"));
      var td = make("td", undefined, "actions");
      if (i > 0) {
        var d = LGM.el("button", { type: "button", class: "act", text: "Diff" }); d.addEventListener("click", function () { diff(r.version).catch(function (e) { say(e.message); }); });
        var x = LGM.el("button", { type: "button", class: "act danger", text: "Restore\u2026" }); x.addEventListener("click", function () { restore(r).catch(function (e) { say(e.message); }); });
        td.append(d, x);
      } else td.append(make("span", "current", "muted"));
      tr.append(td); tb.append(tr);
    });
    say(history.length + " versions");
    await reviews();
    var sec = await LGM.api("inspector/api/procedures/section?" + query());
    var cut = $("proc-cut"), n = sec.cut.agent + sec.cut.user;
    cut.hidden = n === 0;
    cut.textContent = n ? "Section budget (" + sec.maxTokens + " tokens): " + sec.cut.agent + " agent-wide and " + sec.cut.user + " user line(s) are left out of every model call" : "";
  }
  function showDiff(title, lines) {
    var box = $("proc-diff"); box.textContent = "";
    box.append(make("div", title, "muted"));
    lines.forEach(function (l) { box.append(make("div", l.op + " " + l.text, l.op === "+" ? "add" : l.op === "-" ? "del" : "")); });
  }
  async function reviews() {
    var list = (await LGM.api("inspector/api/procedures/reviews?" + query())).reviews;
    var tb = $("proc-reviews"); tb.textContent = "";
    $("proc-review-box").hidden = list.length === 0;
    list.forEach(function (r) {
      var tr = LGM.el("tr", { data: { feedback: r.feedbackIds[0] } });
      var state = r.unsafe ? "unsafe: " + r.unsafe : r.current ? "ready" : "made from v" + r.proposal.baseVersion + ", now v" + r.currentVersion;
      tr.append(make("td", LGM.when(r.proposal.at)), make("td", r.proposal.reason), make("td", "+" + r.diff.added + "/-" + r.diff.removed), make("td", String(r.feedbackIds.length)), make("td", state, "text"));
      var td = make("td", undefined, "actions");
      var d = LGM.el("button", { type: "button", class: "act", text: "Diff" }); d.addEventListener("click", function () { showDiff("current \u2192 proposed", r.diff.lines); });
      td.append(d);
      if (!r.unsafe) { var a = LGM.el("button", { type: "button", class: "act", text: "Apply\u2026" }); a.addEventListener("click", function () { applyReview(r).catch(function (e) { say(e.message); }); }); td.append(a); }
      var x = LGM.el("button", { type: "button", class: "act danger", text: "Dismiss\u2026" }); x.addEventListener("click", function () { dismissReview(r).catch(function (e) { say(e.message); }); });
      td.append(x); tr.append(td); tb.append(tr);
    });
  }
  function reviewBody(r, extra) { var body = { agent: scope.agent, feedback: r.feedbackIds[0] }; if (scope.user) body.user = scope.user; for (var k in extra || {}) body[k] = extra[k]; return body; }
  async function applyReview(r) {
    var yes = await LGM.confirm({
      title: "Apply this proposal?",
      message: r.current ? "It becomes the current instructions, as a new version:" : "The instructions changed after this proposal was made: applying it undoes those changes. It becomes:",
      details: [r.proposal.proposed],
      note: "Nothing is lost: the current instructions stay in the history.",
      confirmLabel: "Apply",
      danger: !r.current,
    });
    if (!yes) { say("not applied"); return; }
    var res = await LGM.api("inspector/api/procedures/reviews/apply", { method: "POST", body: reviewBody(r, r.current ? {} : { force: true }) });
    await open(scope); say("applied as version " + res.record.version);
  }
  async function dismissReview(r) {
    var yes = await LGM.confirm({ title: "Dismiss this proposal?", message: "The instructions stay as they are, and its feedback is marked rejected.", details: [r.proposal.proposed], confirmLabel: "Dismiss", danger: true });
    if (!yes) { say("not dismissed"); return; }
    await LGM.api("inspector/api/procedures/reviews/dismiss", { method: "POST", body: reviewBody(r) });
    await open(scope); say("dismissed");
  }
  async function diff(v) {
    var d = await LGM.api("inspector/api/procedures/diff?" + query({ from: String(v) }));
    showDiff("version " + d.from + " \u2192 " + d.to, d.lines);
  }
  async function restore(r) {
    var yes = await LGM.confirm({
      title: "Restore version " + r.version + "?",
      message: "These instructions become the current ones, as a new version:",
      details: [r.instructions],
      note: "Nothing is lost: the current instructions stay in the history.",
      confirmLabel: "Restore",
      danger: false,
    });
    if (!yes) { say("not restored"); return; }
    var body = { version: r.version, agent: scope.agent };
    if (scope.user) body.user = scope.user;
    var res = await LGM.api("inspector/api/procedures/restore", { method: "POST", body: body });
    await open(scope); say("restored version " + r.version + " as version " + res.record.version);
  }
  LGM.view("procedures", { show: agents });
})();
`;

/** The Procedures view (a section of the inspector's page). */
export const PROCEDURES_VIEW: InspectorView = { id: "procedures", label: "Procedures", html: HTML, script: SCRIPT, css: CSS };
