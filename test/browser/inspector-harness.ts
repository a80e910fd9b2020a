/**
 * Shared setup of the inspector's browser tests: Debian's chromium driven by
 * playwright-core, and a memory server that sends the strict headers the
 * server's security layer sends (CSP `default-src 'self'`, no inline code,
 * `X-Frame-Options: DENY`), so that the page is tested as it will be served.
 */
import fs from "node:fs";
import path from "node:path";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import type { FastifyInstance } from "fastify";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";
import { createMemoryServer } from "../../src/server/create-server.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import type { MemoryServerOptions } from "../../src/server/options.js";

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

/** expect.poll with room for a loaded machine (its default is 1 s). */
export const eventually: typeof expect.poll = (fn, options) => expect.poll(fn, { timeout: 30_000, ...options });

/** A memory server serving the inspector at `/` on 127.0.0.1, and a Chromium page watched for problems. */
export interface InspectorSession {
  app: FastifyInstance;
  url: string;
  browser: Browser;
  page: Page;
  /** Page errors and CSP violations seen so far (see `watchProblems`). */
  problems: string[];
  /** Closes the browser and the server (and runs `onClose`). */
  close(): Promise<void>;
}

export interface InspectorSessionOptions {
  store: BaseStore;
  /** Server options besides the store and the inspector plugin. @default { allowUnauthenticated: true } */
  server?: Omit<MemoryServerOptions, "store" | "plugins" | "logger">;
  /** The inspector's page title. */
  title?: string;
  /** @default Playwright's 1280×720 */
  viewport?: { width: number; height: number };
  /** Runs on the app before it listens (extra hooks). */
  beforeListen?: (app: FastifyInstance) => void;
  /** Runs last in `close()` (e.g. removes the temp dir). */
  onClose?: () => void | Promise<void>;
}

/** The shared setup of the inspector's browser tests: server with strict headers, browser, page. */
export async function openInspector(options: InspectorSessionOptions): Promise<InspectorSession> {
  const { store, title } = options;
  const app = createMemoryServer({
    ...(options.server ?? { allowUnauthenticated: true }),
    store,
    logger: false,
    plugins: [async (a) => a.register(inspectorPlugin, { store, ...(title !== undefined ? { title } : {}) })],
  });
  strictHeaders(app);
  options.beforeListen?.(app);
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await app.close();
    await options.onClose?.();
  };
  try {
    await app.listen({ host: "127.0.0.1", port: 0 });
    browser = await launch();
    const page = await browser.newPage(options.viewport ? { viewport: options.viewport } : {});
    page.setDefaultTimeout(60_000);
    return { app, url: baseUrl(app), browser, page, problems: watchProblems(page), close };
  } catch (err) {
    await close();
    throw err;
  }
}
