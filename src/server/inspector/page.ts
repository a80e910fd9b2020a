/**
 * The inspector's page: an HTML shell without data or inline code, its
 * script (`/inspector/app.js`) and style (`/inspector/app.css`). The page is
 * a nav of views, each a section; a new panel is one more {@link InspectorView}.
 */
import { CORE_JS, START_JS } from "./client/core.js";
import { EPISODES_HTML, EPISODES_JS } from "./client/episodes.js";
import { MEMORIES_HTML, MEMORIES_JS } from "./client/memories.js";
import { APP_CSS } from "./client/style.js";
import { PROCEDURES_VIEW } from "./procedures-panel.js";

/** One view of the inspector: a nav button, a section, and the script that fills it. */
export interface InspectorView {
  /** Id of the view: the section is `view-<id>`, the nav button has `data-view="<id>"`. */
  id: string;
  /** Label of the nav button. */
  label: string;
  /** The section's markup (static; data is filled in by the script with `textContent`). */
  html: string;
  /** Client script: registers the view with `LGM.view(id, { show: async () => … })`. */
  script: string;
  /** The view's own style rules, served in `/inspector/app.css`. */
  css?: string;
}

/** The views, in nav order. */
export const INSPECTOR_VIEWS: readonly InspectorView[] = [
  { id: "memories", label: "Memories", html: MEMORIES_HTML, script: MEMORIES_JS },
  { id: "episodes", label: "Episodes", html: EPISODES_HTML, script: EPISODES_JS },
  PROCEDURES_VIEW,
];

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The script served as `/inspector/app.js`: the core, every view's script, then the start. */
export function appScript(views: readonly InspectorView[] = INSPECTOR_VIEWS): string {
  return `(function () {\n${CORE_JS}\n${views.map((v) => v.script).join("\n")}\n${START_JS}\n})();\n`;
}

/** The stylesheet served as `/inspector/app.css`: the page's, then every view's. */
export function appStyle(views: readonly InspectorView[] = INSPECTOR_VIEWS): string {
  return [APP_CSS, ...views.map((v) => v.css ?? "")].join("\n");
}

const DIALOG = `<dialog id="confirm-dialog" aria-labelledby="confirm-title" aria-describedby="confirm-message">
<form method="dialog"><h2 id="confirm-title"></h2><p id="confirm-message"></p><ul id="confirm-details" class="details" hidden></ul>
<p id="confirm-note" class="warn"></p>
<div id="confirm-typed-wrap" class="typed" hidden><label id="confirm-typed-label" for="confirm-typed"></label><input id="confirm-typed" autocomplete="off" spellcheck="false"></div>
<div class="buttons"><button id="confirm-ok" value="ok" class="act primary-danger">Confirm</button><button id="confirm-cancel" value="cancel" class="act" formnovalidate>Cancel</button></div>
</form></dialog>`;

/** The page shell. */
export function renderPage(options: { title: string; views?: readonly InspectorView[] }): string {
  const views = options.views ?? INSPECTOR_VIEWS;
  const title = escape(options.title);
  const nav = views.map((v) => `<button type="button" data-view="${escape(v.id)}">${escape(v.label)}</button>`).join("");
  const sections = views.map((v) => `<section class="view" id="view-${escape(v.id)}" aria-label="${escape(v.label)}" hidden>${v.html}</section>`).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="stylesheet" href="inspector/app.css"></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><h1>${title}</h1><span class="sub">memory inspector</span>
<form id="keyform" method="post" autocomplete="off"><label for="apikey">Admin API key</label><input id="apikey" type="password" autocomplete="off" spellcheck="false" placeholder="x-api-key"><button>Use key</button><button type="button" id="clearkey" hidden>Clear</button><span id="keystate" role="status"></span></form>
</header>
<nav class="views" aria-label="Views">${nav}</nav>
<main id="main" tabindex="-1"><p id="status" role="status" aria-live="polite"></p>
${sections}
</main>
${DIALOG}
<script src="inspector/app.js" defer></script></body></html>`;
}
