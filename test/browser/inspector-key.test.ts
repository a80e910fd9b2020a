/**
 * The inspector on a server that needs a key, in headless Chromium: without a
 * key the page says so (never "no memories yet"); a wrong key is refused in
 * clear words; the right key, typed into the page's field, opens it, stays
 * out of the URL and of localStorage, survives a reload (sessionStorage) and
 * is gone in a new browser session. An end user's login gets a 403 notice.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually, hasChromium, openInspector, shot, type InspectorSession } from "./inspector-harness.js";

const KEY = "admin-key-0123456789";

describe.skipIf(!hasChromium)("inspector on a keyed server", () => {
  let tmp: { dir: string; cleanup: () => void };
  let store: HNSWStore;
  let session: InspectorSession;
  let browser: Browser;
  let page: Page;
  let url: string;
  let problems: string[];
  const apiRequests: { url: string; key?: string }[] = [];

  beforeAll(async () => {
    tmp = tempDir("inspector-key-");
    store = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings(), fields: ["text"] } });
    await store.put(["users", "42"], "fact-1", { text: "User lives in Lisbon.", source: "extractor" });
    session = await openInspector({
      store,
      server: {
        apiKey: KEY,
        // TEST auth hook: "Bearer user:<id>" is end user <id> (a real deployment verifies a token).
        authenticate: (req) => {
          const m = /^Bearer user:(.+)$/.exec(req.headers.authorization ?? "");
          return m ? { identity: m[1]! } : null;
        },
      },
      viewport: { width: 1280, height: 640 },
      beforeListen: (app) =>
        app.addHook("onRequest", async (req) => {
          if (req.url.includes("/inspector/api/")) apiRequests.push({ url: req.url, key: req.headers["x-api-key"] as string | undefined });
        }),
      onClose: () => tmp.cleanup(),
    });
    ({ browser, page, url, problems } = session);
  }, 180_000);

  afterAll(() => session?.close());

  const notice = () => page.locator("#mem-notice");

  it("without a key, says the server needs an admin key, not that there are no memories", async () => {
    await page.goto(url + "/");
    await eventually(() => notice().isVisible()).toBe(true);
    expect(await notice().locator("strong").textContent()).toBe("This server needs an admin key — enter it above.");
    expect(await page.locator("#namespaces").textContent()).not.toContain("no memories yet");
    expect(await page.locator("#keystate").textContent()).toBe("no key");
    await eventually(() => page.evaluate("document.activeElement.id")).toBe("apikey");
    await page.screenshot({ path: shot("inspector-key.png") });
  });

  it("a wrong key is refused in clear words", async () => {
    await page.fill("#apikey", "not-the-key-123");
    await page.press("#apikey", "Enter");
    await eventually(() => notice().locator("strong").textContent()).toBe("The server refused this key (401).");
    expect(await notice().textContent()).toContain("Server said: the x-api-key header does not match any key of this server");
    expect(await page.locator("#keystate").textContent()).toBe("key refused by the server (401): enter the right one");
    expect(await page.locator("#namespaces").textContent()).not.toContain("no memories yet");
  });

  it("the right key opens the inspector; it is sent as x-api-key, never in the URL or localStorage", async () => {
    await page.fill("#apikey", KEY);
    await page.click("#keyform button:has-text('Use key')");
    await eventually(() => page.locator("#namespaces button").allTextContents()).toEqual(["users.421"]);
    expect(await notice().isHidden()).toBe(true);
    expect(await page.locator("#keystate").textContent()).toBe("key in use (this tab only)");
    expect(await page.inputValue("#apikey")).toBe(""); // not left in the field
    expect(page.url()).toBe(url + "/");
    expect(await page.evaluate("JSON.stringify(localStorage)")).toBe("{}");
    expect(await page.evaluate("sessionStorage.getItem('lgm.inspector.apiKey')")).toBe(KEY);
    const last = apiRequests[apiRequests.length - 1]!;
    expect(last.key).toBe(KEY);
    for (const r of apiRequests) expect(r.url).not.toContain(KEY);
    await page.click("#namespaces button");
    await eventually(() => page.locator("#range").textContent()).toBe("1–1 of 1 memories");
  });

  it("the key survives a reload of the tab, and is gone in a new browser session or after Clear", async () => {
    await page.reload();
    await eventually(() => page.locator("#namespaces button").allTextContents()).toEqual(["users.421"]);
    const other = await browser.newContext();
    const fresh = await other.newPage();
    await fresh.goto(url + "/");
    await eventually(() => fresh.locator("#mem-notice strong").textContent()).toBe("This server needs an admin key — enter it above.");
    await other.close();
    await page.click("#clearkey");
    await eventually(() => notice().locator("strong").textContent()).toBe("This server needs an admin key — enter it above.");
    expect(await page.evaluate("sessionStorage.getItem('lgm.inspector.apiKey')")).toBeNull();
  });

  it("a key put in the address is not used, and is removed from it", async () => {
    await page.goto(url + "/#key=" + KEY); // same document: the hash changes
    await eventually(() => page.url()).toBe(url + "/");
    await page.goto("about:blank");
    await page.goto(url + "/#key=" + KEY); // a fresh load
    await eventually(() => page.url()).toBe(url + "/");
    await eventually(() => notice().locator("strong").textContent()).toBe("This server needs an admin key — enter it above.");
    expect(await page.evaluate("sessionStorage.getItem('lgm.inspector.apiKey')")).toBeNull();
    expect(await page.locator("#status").textContent()).toContain("a key in the address is ignored");
  });

  it("an end user's login is refused with a 403 notice that asks for an admin key", async () => {
    const ctx = await browser.newContext({ extraHTTPHeaders: { authorization: "Bearer user:42" } });
    const p = await ctx.newPage();
    await p.goto(url + "/");
    await eventually(() => p.locator("#mem-notice").textContent()).toContain("not for end users");
    await ctx.close();
    expect(problems).toEqual([]);
  });
});
