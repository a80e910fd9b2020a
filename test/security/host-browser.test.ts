/**
 * DNS rebinding and framing in a real headless Chromium. Chromium resolves
 * `attacker.test` and `rebind.test` to 127.0.0.1 (`--host-resolver-rules`),
 * as a rebinding attacker's DNS would: a page of another origin then talks
 * to the keyless memory server with its own name in `Host`, and a page of
 * another origin tries to frame the inspector. Both must fail, while the
 * inspector opened at http://127.0.0.1:<port>/ works under its strict CSP.
 *
 * Chromium's own Local Network Access checks (which block a public page
 * from fetching loopback in recent versions) are switched off, so that the
 * server's defence is what is tested: other browsers, older ones and
 * non-browser clients do not have them.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/index.js";
import { createMemoryServer } from "../../src/server/index.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { tally } from "./server-counts.js";

// Page-side globals of the functions handed to page.evaluate (the test's tsconfig has no DOM lib).
declare const document: { documentElement: { outerHTML: string }; createElement(tag: string): { textContent: string; src: string; setAttribute(k: string, v: string): void }; body: { append(node: unknown): void } };
declare const window: Record<string, unknown>;

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/security: ${CHROMIUM} is absent; the browser Host/framing checks are skipped`);

const counts = tally("host-browser.test.ts");
afterAll(() => counts.write());
const SECRET = "REBIND-SECRET-77c1";
const TITLE = "inspector under attack";

describe.skipIf(!hasChromium)("rebinding and framing in headless Chromium", () => {
  let tmp: { dir: string; cleanup: () => void };
  let store: HNSWStore;
  let app: ReturnType<typeof createMemoryServer>;
  let attacker: http.Server;
  let browser: Browser;
  let port: number;
  let attackerPort: number;

  beforeAll(async () => {
    tmp = tempDir("security-browser-");
    store = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } });
    await store.put(["users", "victim"], "secret", { text: SECRET });
    app = createMemoryServer({ store, allowUnauthenticated: true, logger: false, closeStore: false, plugins: [async (a) => void (await a.register(inspectorPlugin, { store, title: TITLE }))] });
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
    // The attacker's site, on another origin: one page frames the inspector, the other is plain.
    attacker = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      if (req.url?.startsWith("/frame")) {
        const target = new URL(req.url, "http://x").searchParams.get("target")!;
        res.end(`<!doctype html><title>attacker</title><iframe id="victim" src="${target}" width="800" height="600"></iframe>`);
      } else res.end("<!doctype html><title>attacker</title><p>hello</p>");
    });
    await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
    attackerPort = (attacker.address() as AddressInfo).port;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--host-resolver-rules=MAP attacker.test 127.0.0.1, MAP rebind.test 127.0.0.1",
        "--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults",
      ],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await new Promise((r) => attacker?.close(r));
    await store?.close();
    tmp?.cleanup();
  });

  it("a rebinding page (rebind.test → 127.0.0.1, same port) reads nothing: every request is a 421", async () => {
    const page = await browser.newPage();
    try {
      const nav = await page.goto(`http://rebind.test:${port}/`);
      expect(nav?.status()).toBe(421);
      expect(await page.content()).not.toContain(SECRET);
      counts.count("DNS rebinding in Chromium", nav?.status() === 421, `navigation → ${nav?.status()}`);
      // The attacker's page, as first served by the attacker's own DNS answer (before the
      // name rebinds to 127.0.0.1); every request after it goes to the memory server.
      const attackUrl = `http://rebind.test:${port}/attack.html`;
      await page.route(attackUrl, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>attacker</title>" }));
      await page.goto(attackUrl);
      await page.unroute(attackUrl);
      const answers = await page.evaluate(async () => {
        const calls: [string, RequestInit][] = [
          ["/store/items/search", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ namespace_prefix: [] }) }],
          ["/store/batch", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ operations: [{ op: "list_namespaces" }] }) }],
          ["/v1/store/memories/list", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user_id: "victim" }) }],
          ["/inspector/api/namespaces", {}],
          ["/inspector/api/memories?namespace=users.victim", {}],
          ["/inspector/api/forget", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ namespace: ["users", "victim"], confirm: "users.victim" }) }],
          ["/%69nspector/api/namespaces", {}],
          ["/", {}],
        ];
        const out: { path: string; status: number; text: string }[] = [];
        for (const [path, init] of calls) {
          try {
            const r = await fetch(path, init);
            out.push({ path, status: r.status, text: await r.text() });
          } catch (e) {
            out.push({ path, status: 0, text: String(e) });
          }
        }
        return out;
      });
      for (const a of answers) {
        const held = a.status === 421 && !a.text.includes(SECRET) && a.text.includes("HostNotAllowedError");
        counts.count("DNS rebinding in Chromium", held, `${a.path} → ${a.status} ${a.text.slice(0, 100)}`);
      }
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 421));
      expect((await store.get(["users", "victim"], "secret"))?.value.text).toBe(SECRET);
    } finally {
      await page.close();
    }
  });

  it("a page on another origin cannot frame the inspector (X-Frame-Options DENY, frame-ancestors 'none')", async () => {
    for (const target of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`, `http://127.0.0.1:${port}/inspector/api/namespaces`]) {
      for (const origin of [`http://attacker.test:${attackerPort}`, `http://127.0.0.1:${attackerPort}`]) {
        const page = await browser.newPage();
        try {
          await page.goto(`${origin}/frame?target=${encodeURIComponent(target)}`);
          await page.waitForTimeout(300);
          const child = page.frames().find((f) => f !== page.mainFrame());
          const seen = child ? await child.evaluate(() => document.documentElement.outerHTML).catch(() => "") : "";
          const held = !seen.includes(TITLE) && !seen.includes(SECRET) && !seen.includes("namespaces");
          counts.count("framing from another origin in Chromium", held, `${origin} framing ${target}: frame ${child?.url()} shows ${seen.slice(0, 120)}`);
          expect(held, `${origin} framing ${target}: ${seen.slice(0, 200)}`).toBe(true);
        } finally {
          await page.close();
        }
      }
    }
  });

  it("opened as http://127.0.0.1:<port>/ the inspector works under its CSP, and injected inline script does not run", async () => {
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
    });
    try {
      const res = await page.goto(`http://127.0.0.1:${port}/`);
      const csp = res?.headers()["content-security-policy"] ?? "";
      expect(csp).toMatch(/default-src 'self'/);
      expect(csp).toMatch(/script-src 'self'(;|$)/); // no inline script at all: the page's script is /inspector/app.js
      expect(csp).toMatch(/frame-ancestors 'none'/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res?.headers()["x-frame-options"]).toBe("DENY");
      await expect.poll(() => page.locator("#namespaces button").allTextContents()).toEqual(["users.victim1"]);
      expect(violations).toEqual([]);
      // What an XSS would try: an inline script added to the page does not run under the CSP.
      const ran = await page.evaluate(async () => {
        const s = document.createElement("script");
        s.textContent = "window.__pwned = true";
        document.body.append(s);
        const img = document.createElement("img");
        img.setAttribute("onerror", "window.__pwned2 = true");
        img.src = "data:,x";
        document.body.append(img);
        await new Promise((r) => setTimeout(r, 200));
        return { inline: window.__pwned === true, handler: window.__pwned2 === true };
      });
      counts.count("injected inline script under the inspector's CSP", !ran.inline, "inline <script> ran");
      counts.count("injected inline script under the inspector's CSP", !ran.handler, "inline event handler ran");
      expect(ran).toEqual({ inline: false, handler: false });
      expect(counts.breaches).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
