/**
 * The web inspector in a real headless Chromium (Debian's chromium, driven by
 * playwright-core), on a real HNSWStore with the real USE-lite embedder, so
 * that search by meaning is real. Lists, searches, deletes and forgets
 * through the page, and checks the store after each.
 */
import fs from "node:fs";
import path from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { tempDir } from "../helpers/temp-dir.js";

const CHROMIUM = "/usr/bin/chromium";
const hasChromium = fs.existsSync(CHROMIUM);
if (!hasChromium) console.warn(`test/browser: ${CHROMIUM} is absent (apt-get install chromium); the inspector browser test is skipped`);

const root = path.resolve(import.meta.dirname, "../..");

describe.skipIf(!hasChromium)("web inspector in headless Chromium", () => {
  let tmp: { dir: string; cleanup: () => void };
  let store: HNSWStore;
  let app: FastifyInstance;
  let browser: Browser;
  let page: Page;
  let url: string;

  beforeAll(async () => {
    tmp = tempDir("inspector-");
    store = new HNSWStore({ path: tmp.dir, index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] } });
    await store.put(["users", "42"], "fact-lisbon", { text: "User lives in Lisbon.", source: "extractor" });
    await store.put(["users", "42"], "fact-peanuts", { text: "User is allergic to peanuts.", source: "extractor" });
    await store.put(["users", "42"], "tool-short", { text: "User prefers short answers.", source: "tool" }, undefined, { ttl: 120 });
    await store.put(["users", "7"], "fact-cello", { text: "User plays the cello.", source: "extractor" });
    await store.put(["memory_cursors", "users", "42"], "thread-1", { processed: 6, last: "x" }, false);
    app = Fastify();
    await app.register(inspectorPlugin, { store, title: "langgraph-memory inspector" });
    url = await app.listen({ host: "127.0.0.1", port: 0 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    page = await browser.newPage({ viewport: { width: 1280, height: 560 } });
    page.setDefaultTimeout(60_000);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await store?.close();
    tmp?.cleanup();
  });

  const rows = () => page.locator("#rows tr");

  it("lists namespaces (cursors left out) and a user's memories with key, source, dates and TTL left", async () => {
    await page.goto(url + "/");
    const names = await page.locator("#namespaces button").allTextContents();
    expect(names).toEqual(["users.423", "users.71"]); // label + count
    await page.locator("#namespaces button", { hasText: "users.42" }).click();
    await expect.poll(() => rows().count()).toBe(3);
    const short = rows().filter({ hasText: "User prefers short answers." });
    expect(await short.locator("td.key").textContent()).toBe("tool-short");
    expect(await short.locator(".src").textContent()).toBe("tool");
    expect(await short.locator("td.ttl").textContent()).toBe("2 h");
    const lisbon = rows().filter({ hasText: "User lives in Lisbon." });
    expect(await lisbon.locator(".src").textContent()).toBe("extractor");
    expect(await lisbon.locator("td.ttl").textContent()).toBe("never");
    expect(await page.locator("#status").textContent()).toBe("3 memories");
  });

  it("searches by meaning and shows scores", async () => {
    await page.fill("#query", "what food must be avoided");
    await page.click("#searchform button");
    await expect.poll(() => page.locator("#status").textContent()).toContain("results for");
    const first = rows().first();
    expect(await first.locator("td.text").textContent()).toBe("User is allergic to peanuts.");
    const scores = (await page.locator("#rows td.score").allTextContents()).map(Number);
    expect(scores.length).toBe(3);
    expect(scores[0]).toBeGreaterThan(scores[2]);
    expect(scores[0]).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(root, "docs/inspector.png") });
  });

  it("deletes one memory", async () => {
    await page.fill("#query", "");
    await page.click("#searchform button");
    await expect.poll(() => rows().count()).toBe(3);
    await rows().filter({ hasText: "User prefers short answers." }).locator("button", { hasText: "Delete" }).click();
    await expect.poll(() => rows().count()).toBe(2);
    expect(await store.get(["users", "42"], "tool-short")).toBeNull();
    expect(await store.get(["users", "42"], "fact-lisbon")).not.toBeNull();
  });

  it("forgets the user only after the namespace is typed again, memories and cursors both", async () => {
    page.once("dialog", (d) => void d.accept("users.4"));
    await page.click("#forget");
    await expect.poll(() => page.locator("#status").textContent()).toBe("not confirmed; nothing was deleted");
    expect(await store.count(["users", "42"])).toBe(2);
    page.once("dialog", (d) => void d.accept("users.42"));
    await page.click("#forget");
    await expect.poll(() => page.locator("#status").textContent()).toBe("forgot users.42: 2 memories, 1 cursors");
    expect(await store.count(["users", "42"])).toBe(0);
    expect(await store.count(["memory_cursors", "users", "42"])).toBe(0);
    expect(await store.count(["users", "7"])).toBe(1);
    await expect.poll(() => page.locator("#namespaces button").allTextContents()).toEqual(["users.71"]);
    expect(await rows().count()).toBe(0);
  });

  it("the JSON routes reject bad input with 400 and a message", async () => {
    const res = await app.inject({ method: "POST", url: "/inspector/api/forget", payload: { namespace: ["users", "7"], confirm: "users.8" } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/forget needs confirm: "users.7"/);
    const bad = await app.inject({ method: "GET", url: "/inspector/api/memories?namespace=" + encodeURIComponent('["a.b"]') });
    expect(bad.statusCode).toBe(400);
    expect(await store.count(["users", "7"])).toBe(1);
  });
});
