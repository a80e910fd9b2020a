/** The Episodes view: a user's recorded conversations (threads) and each one as a chat, with dates and speakers. */

export const EPISODES_HTML = String.raw`<div class="layout episodes">
<aside class="panel" aria-labelledby="ep-ns-head"><h2 id="ep-ns-head">Episode namespaces</h2>
<ul id="ep-namespaces" class="nslist"></ul>
</aside>
<div class="panel" id="ep-main">
<div class="toolbar"><h2 id="ep-title" tabindex="-1">Pick a user's conversations</h2><button type="button" id="ep-forget" class="act danger" hidden>Forget user…</button></div>
<div id="ep-notice" class="notice" role="alert" hidden></div>
<p id="ep-hint" class="muted">Pick a user's episode namespace on the left: its conversations are listed here.</p>
<div id="ep-list" hidden>
<form id="ep-controls" class="controls"><label class="field grow">Filter conversations<input id="ep-filter" type="search" placeholder="thread, speaker or words said" autocomplete="off"></label></form>
<ul id="threads" class="threads"></ul>
<div class="pager"><button type="button" class="act" id="ep-prev">← Previous</button><span id="ep-range" class="range" aria-live="polite"></span><button type="button" class="act" id="ep-next">Next →</button></div>
</div>
</div>
<div class="panel" id="conversation" aria-labelledby="conv-title">
<h2 id="conv-title" tabindex="-1">Conversation</h2>
<p id="conv-meta" class="muted">Pick a conversation to read it.</p>
<ol id="turns" class="chat"></ol>
<div class="pager"><button type="button" class="act" id="turns-more" hidden>Show more turns</button><span id="turns-range" class="range"></span></div>
</div>
</div>`;

export const EPISODES_JS = String.raw`
(function () {
  var s = { ns: null, offset: 0, limit: 20, total: 0, thread: null, turns: [], turnsTotal: 0 };
  var timer = null;

  async function loadNamespaces() {
    var ul = $("ep-namespaces");
    try {
      var r = await LGM.api("inspector/api/namespaces");
      var eps = r.namespaces.filter(function (n) { return n.kind === "episodes"; });
      LGM.clearProblem($("ep-notice"));
      $("ep-list").hidden = !s.ns; $("ep-hint").hidden = !!s.ns; $("ep-forget").hidden = !s.ns;
      LGM.namespaceList(ul, eps, s.ns, pick, "no conversations recorded yet");
      return true;
    } catch (err) {
      ul.textContent = "";
      ul.append(LGM.el("li", { class: "muted", text: err instanceof LGM.AccessRefused ? "access refused" : "could not load" }));
      LGM.showProblem($("ep-notice"), err);
      $("threads").textContent = ""; $("ep-forget").hidden = true; $("ep-list").hidden = true; $("ep-hint").hidden = true;
      return false;
    }
  }

  async function pick(ns) {
    s.ns = ns; s.offset = 0; s.thread = null;
    $("ep-title").textContent = LGM.dotted(ns);
    var person = LGM.personOf(ns);
    $("ep-forget").hidden = false; $("ep-list").hidden = false; $("ep-hint").hidden = true;
    $("ep-forget").textContent = person === undefined ? "Forget namespace…" : "Forget user " + person + "…";
    document.querySelectorAll("#ep-namespaces button").forEach(function (b) { b.classList.toggle("active", b.dataset.ns === JSON.stringify(ns)); });
    clearConversation();
    await loadThreads();
  }

  async function loadThreads() {
    if (!s.ns) return;
    var r;
    try { r = await LGM.api("inspector/api/threads?" + LGM.query({ namespace: JSON.stringify(s.ns), offset: s.offset, limit: s.limit, filter: $("ep-filter").value.trim() })); }
    catch (err) { if (err instanceof LGM.AccessRefused) LGM.showProblem($("ep-notice"), err); else LGM.status(err.message); return; }
    s.total = r.total;
    var ul = $("threads"); ul.textContent = "";
    r.threads.forEach(function (t) {
      var dates = t.dates.length > 1 ? t.dates[0] + " \u2013 " + t.dates[t.dates.length - 1] : (t.dates[0] || "");
      var b = LGM.el("button", { type: "button", class: s.thread === t.threadId ? "active" : "", data: { thread: t.threadId } }, [
        LGM.el("div", { class: "tid", text: t.threadId }),
        LGM.el("div", { class: "tmeta", text: dates + " \u00b7 " + t.turns + " turn" + (t.turns === 1 ? "" : "s") + " \u00b7 " + t.speakers.join(", ") }),
        LGM.el("div", { class: "tprev", text: t.preview })]);
      b.addEventListener("click", function () { openThread(t); });
      ul.append(LGM.el("li", null, [b]));
    });
    if (!r.threads.length) ul.append(LGM.el("li", { class: "muted", text: $("ep-filter").value.trim() ? "no conversation matches" : "no conversations in this namespace" }));
    $("ep-range").textContent = LGM.range(r.offset === undefined ? s.offset : s.offset, r.threads.length, r.total, r.complete, "conversations");
    $("ep-prev").disabled = s.offset === 0;
    $("ep-next").disabled = s.offset + r.threads.length >= r.total;
  }

  function clearConversation() {
    $("turns").textContent = ""; $("conv-title").textContent = "Conversation"; $("conv-meta").textContent = "Pick a conversation to read it.";
    $("turns-more").hidden = true; $("turns-range").textContent = "";
  }

  async function openThread(t) {
    s.thread = t.threadId; s.turns = [];
    document.querySelectorAll("#threads button").forEach(function (b) { b.classList.toggle("active", b.dataset.thread === t.threadId); });
    $("turns").textContent = "";
    await loadTurns();
    $("conv-title").textContent = "Conversation " + t.threadId;
    $("conv-meta").textContent = t.turns + " turns \u00b7 " + LGM.when(t.firstAt) + " \u2013 " + LGM.when(t.lastAt);
    $("conv-title").focus();
  }

  async function loadTurns() {
    var r = await LGM.api("inspector/api/thread?" + LGM.query({ namespace: JSON.stringify(s.ns), thread: s.thread, offset: s.turns.length, limit: 200 }));
    var ol = $("turns");
    var lastDate = s.turns.length ? s.turns[s.turns.length - 1].date : null;
    r.turns.forEach(function (t) {
      if (t.date && t.date !== lastDate) { ol.append(LGM.el("li", { class: "daybreak", text: t.date })); lastDate = t.date; }
      var time = t.timestamp ? new Date(t.timestamp) : null;
      ol.append(LGM.el("li", { class: "turn " + (t.role === "assistant" ? "assistant" : "user"), data: { turn: String(t.turn) } }, [
        LGM.el("div", { class: "who" }, [LGM.el("b", { text: t.speaker }), " \u00b7 " + (time && !isNaN(time.getTime()) ? time.toLocaleTimeString() : "") + " \u00b7 turn " + t.turn]),
        LGM.el("p", { text: t.text })]));
      s.turns.push(t);
    });
    s.turnsTotal = r.total;
    $("turns-more").hidden = s.turns.length >= r.total;
    $("turns-range").textContent = s.turns.length + " of " + r.total + " turns";
  }

  $("ep-controls").addEventListener("submit", function (e) { e.preventDefault(); s.offset = 0; loadThreads(); });
  $("ep-filter").addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(function () { s.offset = 0; loadThreads(); }, 250); });
  $("ep-prev").addEventListener("click", function () { s.offset = Math.max(0, s.offset - s.limit); loadThreads(); });
  $("ep-next").addEventListener("click", function () { if (s.offset + s.limit < s.total) { s.offset += s.limit; loadThreads(); } });
  $("turns-more").addEventListener("click", function () { loadTurns(); });
  $("ep-forget").addEventListener("click", async function () {
    if (!s.ns) return;
    if (await LGM.forget(s.ns)) { var st = $("status").textContent; s.ns = null; clearConversation(); $("threads").textContent = ""; $("ep-range").textContent = ""; $("ep-forget").hidden = true; $("ep-list").hidden = true; $("ep-hint").hidden = false; await loadNamespaces(); LGM.status(st); }
  });

  LGM.view("episodes", {
    show: async function () {
      if (await loadNamespaces() && s.ns) await loadThreads();
    },
  });
})();
`;
