/**
 * Shared setup of the inspector's browser tests: Debian's chromium driven by
 * playwright-core, and a memory server that sends the strict headers the
 * server's security layer sends (CSP `default-src 'self'`, no inline code,
 * `X-Frame-Options: DENY`), so that the page is tested as it will be served.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/browser: ${CHROMIUM} is absent (apt-get install chromium); the inspector browser tests are skipped`);

export const root = path.resolve(import.meta.dirname, "../..");
export const shot = (name: string) => path.join(root, "docs", name);

export const STRICT_CSP = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'";

/** Adds the strict headers to every response (call before the app is ready). */
export function strictHeaders(app: FastifyInstance): void {
  app.addHook("onSend", async (_req, reply) => {
    reply.header("content-security-policy", STRICT_CSP);
    reply.header("x-frame-options", "DENY");
  });
}

export async function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** Page errors and CSP violations seen by a page (a favicon 404/401 is not one). */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    const text = m.text();
    if (/Content Security Policy|Refused to/i.test(text)) problems.push(`csp: ${text}`);
  });
  return problems;
}

/** The server's URL from `listen`'s answer. */
export const baseUrl = (app: FastifyInstance) => {
  const a = app.server.address();
  return `http://127.0.0.1:${typeof a === "object" && a ? a.port : 0}`;
};

/** What has the keyboard focus (read in the page; the tests have no DOM types). */
export interface Focused {
  id: string;
  className: string;
  view: string;
  ns: string;
  text: string;
  outlineWidth: string;
  /** The id of the closest ancestor with an id (the panel or dialog it is in). */
  within: string[];
}

export function focused(page: Page): Promise<Focused> {
  return page.evaluate(`(() => {
    const a = document.activeElement;
    const within = [];
    for (let p = a && a.parentElement; p; p = p.parentElement) if (p.id) within.push(p.id);
    return { id: a.id, className: String(a.className), view: a.dataset.view || "", ns: a.dataset.ns || "", text: (a.textContent || "").trim(), outlineWidth: getComputedStyle(a).outlineWidth, within };
  })()`);
}
