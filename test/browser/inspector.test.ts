/**
 * The web inspector in a real headless Chromium (Debian's chromium, driven by
 * playwright-core), served by the real memory server on 127.0.0.1 over a real
 * HNSWStore with the real USE-lite embedder (so search by meaning is real),
 * wrapped in a ProtectedStore that keeps history. Every response carries the
 * strict CSP the server's security layer sends. Pages through 120 memories,
 * filters, sorts, reads the JSON, restores a version, deletes and forgets
 * only after an in-page confirmation, reads conversations, and drives the
 * page by keyboard; the store is checked after each step.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { UniversalSentenceEncoderEmbeddings } from "../../src/embeddings/universal-sentence-encoder.js";
import { ProtectedStore } from "../../src/privacy/protected-store.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually, focused, hasChromium, openInspector, shot, type InspectorSession } from "./inspector-harness.js";

const U42 = ["users", "42"];
const key = (i: number) => `m-${String(i).padStart(3, "0")}`;
const TOPICS = ["hiking in the Alps", "jazz records", "a Python course", "tomato plants", "chess openings", "the bus timetable", "a birthday party", "knitting", "a running club"];
function textFor(i: number): string {
  if (i === 1) return "User lives in Lisbon.";
  if (i === 2) return "User is allergic to peanuts.";
  if (i === 3) return "User prefers short answers.";
  if (i === 5) return "User's favourite colour is green.";
  if (i % 10 === 0) return `Note ${i}: the user drinks coffee with oat milk every morning.`;
  return `Note ${i}: the user talked about ${TOPICS[i % TOPICS.length]}.`;
}

describe.skipIf(!hasChromium)("web inspector in headless Chromium", () => {
  let tmp: { dir: string; cleanup: () => void };
  let inner: HNSWStore;
  let store: ProtectedStore;
  let session: InspectorSession;
  let page: Page;
  let url: string;
  let problems: string[];

  beforeAll(async () => {
    tmp = tempDir("inspector-");
    inner = new HNSWStore({ path: tmp.dir, index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] } });
    store = new ProtectedStore(inner, { history: true });
    const put = (i: number) => ({ namespace: U42, key: key(i), value: { text: textFor(i), source: i % 2 ? "tool" : "extractor" } });
    await store.batch(Array.from({ length: 60 }, (_, i) => put(i)).filter((op) => op.key !== key(3)));
    await new Promise((r) => setTimeout(r, 20));
    await store.batch(Array.from({ length: 60 }, (_, i) => put(60 + i)));
    await inner.put(U42, key(3), { text: textFor(3), source: "tool" }, undefined, { ttl: 120 });
    // Two kept versions of m-005: green (replaced by blue), blue (replaced by red).
    await store.put(U42, key(5), { text: "User's favourite colour is blue.", source: "tool" });
    await store.put(U42, key(5), { text: "User's favourite colour is red.", source: "tool" });
    await store.put(["users", "7"], "fact-cello", { text: "User plays the cello.", source: "extractor" });
    await store.put(["memory_cursors", "users", "42"], "thread-1", { processed: 6, last: "x" }, false);
    const said = (pairs: [string, string][]) => pairs.flatMap(([u, a]) => [{ role: "user", content: u }, { role: "assistant", content: a }]);
    await recordEpisodes({ store, namespace: ["episodes", "42"], threadId: "trip-planning", now: "2026-11-20T10:00:00Z", speakers: { user: "Ana" },
      messages: said([["I want to plan a trip to Porto in spring.", "Porto is lovely in April. Train or car?"], ["Train, please. I do not drive.", "Noted: train from Lisbon, about three hours."]]) });
    await recordEpisodes({ store, namespace: ["episodes", "42"], threadId: "allergy-check", now: "2026-11-28T09:30:00Z", speakers: { user: "Ana" },
      messages: said([["Is satay sauce safe for me?", "No: satay sauce is made with peanuts, which you are allergic to."]]) });

    session = await openInspector({ store, title: "langgraph-memory inspector", viewport: { width: 1360, height: 820 }, onClose: () => tmp.cleanup() });
    ({ page, url, problems } = session);
  }, 300_000);

  afterAll(() => session?.close());

  const rows = () => page.locator("#rows tr");
  const rowKeys = () => page.locator("#rows td.key").allTextContents();
  const range = () => page.locator("#range").textContent();
  const dialog = () => page.locator("#confirm-dialog");
  const text = async (k: string) => ((await inner.get(U42, k, { refreshTtl: false }))?.value as { text?: string } | undefined)?.text;

  it("serves the page with no inline script or style, and runs under a strict CSP", async () => {
    const res = await page.goto(url + "/");
    expect(res?.headers()["content-security-policy"]).toContain("default-src 'self'");
    const html = await res!.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    const names = await page.locator("#namespaces button").allTextContents();
    expect(names).toEqual(["users.71", "users.42120"]); // label + count, numbers in numeric order; cursors, history and episodes are not memories
    expect(problems).toEqual([]);
  });

  it("pages through 120 memories with an honest N of M, and every page is different", async () => {
    await page.locator("#namespaces button", { hasText: "users.42" }).click();
    await eventually(range).toBe("1–25 of 120 memories · page 1 of 5");
    expect(await rows().count()).toBe(25);
    expect((await rowKeys())[0]).toBe(key(5)); // updated last
    const seen = new Set(await rowKeys());
    for (let p = 2; p <= 5; p++) {
      await page.click("#next");
      await eventually(range).toBe(p < 5 ? `${(p - 1) * 25 + 1}–${p * 25} of 120 memories · page ${p} of 5` : "101–120 of 120 memories · page 5 of 5");
      for (const k of await rowKeys()) seen.add(k);
    }
    expect(await rows().count()).toBe(20);
    expect(await page.locator("#next").isDisabled()).toBe(true);
    expect(seen.size).toBe(120);
    expect([...seen].sort()).toEqual(Array.from({ length: 120 }, (_, i) => key(i)));
    await page.click("#prev");
    await eventually(range).toBe("76–100 of 120 memories · page 4 of 5");
    await page.selectOption("#pagesize", "100");
    await eventually(range).toBe("1–100 of 120 memories · page 1 of 2");
    expect(await rows().count()).toBe(100);
    await page.selectOption("#pagesize", "25");
    await eventually(range).toBe("1–25 of 120 memories · page 1 of 5");
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: shot("inspector-memories.png") });
  });

  it("filters by text and by key, and sorts", async () => {
    await page.fill("#filter", "coffee");
    await eventually(range).toBe("1–12 of 12 memories");
    for (const t of await page.locator("#rows td.text").allTextContents()) expect(t).toContain("coffee");
    await page.selectOption("#field", "key");
    await page.fill("#filter", "m-11");
    await eventually(range).toBe("1–10 of 10 memories");
    expect((await rowKeys()).sort()).toEqual(Array.from({ length: 10 }, (_, i) => key(110 + i)));
    await page.fill("#filter", "");
    await page.selectOption("#field", "any");
    await eventually(range).toBe("1–25 of 120 memories · page 1 of 5");
    await page.selectOption("#sort", "key-asc");
    await eventually(async () => (await rowKeys())[0]).toBe(key(0));
    await page.selectOption("#sort", "key-desc");
    await eventually(async () => (await rowKeys())[0]).toBe(key(119));
    await page.click("#next");
    await eventually(async () => (await rowKeys())[0]).toBe(key(94));
    await page.selectOption("#sort", "created-asc");
    await eventually(range).toBe("1–25 of 120 memories · page 1 of 5"); // a new order starts at page 1
    expect((await rowKeys())[0]).toBe(key(0));
    await page.selectOption("#sort", "updated-desc");
  });

  it("searches by meaning and shows scores", async () => {
    await page.fill("#query", "what food must be avoided");
    await page.press("#query", "Enter");
    await eventually(() => page.locator("#status").textContent()).toContain("results for");
    expect(await page.inputValue("#sort")).toBe("relevance");
    expect(await rows().first().locator("td.text").textContent()).toBe("User is allergic to peanuts.");
    const scores = (await page.locator("#rows td.score").allTextContents()).map(Number);
    expect(scores.length).toBe(25);
    expect(scores[0]).toBeGreaterThan(scores[24]);
    expect(await range()).toBe("1–25 of 120 memories · page 1 of 5");
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: shot("inspector.png") });
    await page.fill("#query", "");
    await page.press("#query", "Enter");
    await eventually(() => page.inputValue("#sort")).toBe("updated-desc");
  });

  it("shows the full value as JSON, with dates, source and TTL", async () => {
    await page.fill("#filter", "short answers");
    await eventually(rowKeys).toEqual([key(3)]);
    expect(await range()).toBe("1–1 of 1 memories");
    expect(await page.locator("#rows td.ttl").textContent()).toMatch(/^(2 h|1 h 59 min)$/);
    await page.click("#rows button.details");
    await eventually(() => page.locator("#detail-title").textContent()).toBe("Memory m-003");
    const shown = JSON.parse((await page.locator("#detail-json").textContent())!);
    const item = (await inner.get(U42, key(3), { refreshTtl: false }))!;
    expect(shown).toMatchObject({ namespace: U42, key: key(3), value: item.value, source: "tool", createdAt: item.createdAt.toISOString(), updatedAt: item.updatedAt.toISOString() });
    const expires = (await inner.expiryOf(U42, key(3)))!; // looking at a memory does not refresh its TTL
    expect(shown.expiresAt).toBe(expires.toISOString());
    expect(shown.ttlLeftMs).toBeGreaterThan(119 * 60_000);
    await eventually(async () => (await focused(page)).within).toContain("detail");
    await page.keyboard.press("Escape"); // closes the detail panel, focus back on its button
    await eventually(() => page.locator("#detail").isHidden()).toBe(true);
    expect((await focused(page)).className).toContain("details");
  });

  it("shows a memory's history and restores a version only after confirmation", async () => {
    await page.fill("#filter", "favourite colour");
    await eventually(rowKeys).toEqual([key(5)]);
    await page.click("#rows button.details");
    const versions = page.locator("#history li");
    await eventually(() => versions.count()).toBe(2);
    expect(await versions.locator(".vtext").allTextContents()).toEqual(["User's favourite colour is blue.", "User's favourite colour is green."]);
    const green = versions.nth(1);
    await green.locator("button", { hasText: "Show JSON" }).click();
    expect(JSON.parse((await green.locator("pre").textContent())!).value.text).toBe("User's favourite colour is green.");

    await page.evaluate("document.getElementById('detail').scrollTop = 0");
    await page.screenshot({ path: shot("inspector-history.png") });
    await green.locator("button.restore").click();
    await eventually(() => dialog().isVisible()).toBe(true);
    expect(await page.locator("#confirm-title").textContent()).toBe("Restore this version?");
    await page.click("#confirm-cancel");
    await eventually(() => dialog().isVisible()).toBe(false);
    expect(await text(key(5))).toBe("User's favourite colour is red.");
    await green.locator("button.restore").click();
    await page.keyboard.press("Escape");
    await eventually(() => dialog().isVisible()).toBe(false);
    expect(await text(key(5))).toBe("User's favourite colour is red.");

    await green.locator("button.restore").click();
    await page.click("#confirm-ok");
    await eventually(() => text(key(5))).toBe("User's favourite colour is green.");
    await eventually(() => versions.count()).toBe(3); // the replaced value (red) is kept: the restore can be undone
    expect(await versions.first().locator(".vtext").textContent()).toBe("User's favourite colour is red.");
    expect(JSON.parse((await page.locator("#detail-json").textContent())!).value.text).toBe("User's favourite colour is green.");
    await page.click("#detail-close");
    await page.fill("#filter", "");
    await eventually(range).toBe("1–25 of 120 memories · page 1 of 5");
  });

  it("deletes a memory only after the in-page confirmation", async () => {
    const row = rows().filter({ has: page.locator("td.key", { hasText: key(11) }) });
    await page.selectOption("#sort", "key-asc");
    await eventually(() => row.count()).toBe(1);
    await row.locator("button.delete").click();
    await eventually(() => dialog().isVisible()).toBe(true);
    expect(await page.locator("#confirm-details").textContent()).toContain("key: m-011");
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: shot("inspector-confirm.png") });
    await page.click("#confirm-cancel");
    await eventually(() => page.locator("#status").textContent()).toBe("not deleted");
    expect(await inner.get(U42, key(11))).not.toBeNull();
    await row.locator("button.delete").click();
    await page.click("#confirm-ok");
    await eventually(range).toBe("1–25 of 119 memories · page 1 of 5");
    expect(await inner.get(U42, key(11))).toBeNull();
    // This store keeps history, so a delete can be undone from the status line.
    await page.click("#status-action");
    await eventually(range).toBe("1–25 of 120 memories · page 1 of 5");
    expect(await text(key(11))).toBe(textFor(11));
    expect(await page.locator("#status").textContent()).toBe("restored m-011");
    await row.locator("button.delete").click();
    await page.keyboard.press("Enter"); // the confirm button has the focus
    await eventually(range).toBe("1–25 of 119 memories · page 1 of 5");
    expect(await inner.get(U42, key(11))).toBeNull();
    expect(await inner.count(U42)).toBe(119);
    await eventually(() => page.locator("#namespaces button").allTextContents()).toEqual(["users.71", "users.42119"]);
    await page.selectOption("#sort", "updated-desc");
  });

  it("is usable by keyboard: focus order, visible focus, Enter and Escape in dialogs", async () => {
    await page.goto(url + "/");
    await eventually(() => page.locator("#namespaces button").count()).toBe(2);
    await page.locator("body").focus();
    const visited: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      const f = await focused(page);
      visited.push(f.id || f.view || f.ns || f.text);
    }
    const at = (id: string) => visited.indexOf(id);
    expect(at("apikey")).toBeGreaterThan(-1);
    expect(at("apikey")).toBeLessThan(at("memories"));
    expect(at("memories")).toBeLessThan(at("episodes"));
    expect(at("episodes")).toBeLessThan(at("ns-filter"));
    expect(at("ns-filter")).toBeLessThan(at('["users","7"]'));
    // Focus is visible: a 3px outline on the focused control.
    for (let i = 0; i < 20 && (await focused(page)).ns !== '["users","7"]'; i++) await page.keyboard.press("Shift+Tab");
    expect((await focused(page)).outlineWidth).toBe("3px");
    await page.keyboard.press("Enter");
    await eventually(range).toBe("1–1 of 1 memories");
    // Tab on to the row's Delete button, open the dialog with Enter, leave it with Escape.
    for (let i = 0; i < 30 && !(await focused(page)).className.includes("delete"); i++) await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await eventually(() => dialog().isVisible()).toBe(true);
    expect((await focused(page)).id).toBe("confirm-ok");
    await page.keyboard.press("Escape");
    await eventually(() => dialog().isVisible()).toBe(false);
    expect((await focused(page)).className).toContain("delete");
    expect(await store.get(["users", "7"], "fact-cello")).not.toBeNull();
    expect(problems).toEqual([]);
  });

  it("shows episodes as conversations: threads with dates and speakers, turns in order", async () => {
    await page.click('nav button[data-view="episodes"]');
    await eventually(() => page.locator("#ep-namespaces button").allTextContents()).toEqual(["episodes.426"]);
    await page.click("#ep-namespaces button");
    await eventually(() => page.locator("#threads .tid").allTextContents()).toEqual(["allergy-check", "trip-planning"]); // newest first
    expect(await page.locator("#threads .tmeta").nth(1).textContent()).toBe("2026-11-20 · 4 turns · Ana, assistant");
    expect(await page.locator("#ep-range").textContent()).toBe("1–2 of 2 conversations");
    await page.locator("#threads button", { hasText: "trip-planning" }).click();
    await eventually(() => page.locator("#turns li.turn").count()).toBe(4);
    expect(await page.locator("#turns li.turn .who b").allTextContents()).toEqual(["Ana", "assistant", "Ana", "assistant"]);
    expect(await page.locator("#turns li.turn p").allTextContents()).toEqual([
      "I want to plan a trip to Porto in spring.", "Porto is lovely in April. Train or car?", "Train, please. I do not drive.", "Noted: train from Lisbon, about three hours."]);
    expect(await page.locator("#turns li.daybreak").allTextContents()).toEqual(["2026-11-20"]);
    expect(await page.locator("#turns-range").textContent()).toBe("4 of 4 turns");
    await page.fill("#ep-filter", "satay");
    await eventually(() => page.locator("#threads .tid").allTextContents()).toEqual(["allergy-check"]);
    await page.fill("#ep-filter", "");
    await eventually(() => page.locator("#threads .tid").count()).toBe(2);
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: shot("inspector-episodes.png") });
  });

  it("forgets a user only after the user id is typed: memories, episodes, history and cursors", async () => {
    await page.click('nav button[data-view="memories"]');
    await page.locator("#namespaces button", { hasText: "users.42" }).click();
    const forget = page.locator("#forget");
    expect(await forget.isVisible()).toBe(true);
    expect(await forget.isEnabled()).toBe(true);
    expect(await forget.textContent()).toBe("Forget user 42…");
    await forget.click();
    await eventually(() => dialog().isVisible()).toBe(true);
    expect((await focused(page)).id).toBe("confirm-typed");
    await page.keyboard.type("4");
    expect(await page.locator("#confirm-ok").isDisabled()).toBe(true);
    await page.keyboard.press("Enter"); // refused: the typed id does not match
    expect(await dialog().isVisible()).toBe(true);
    await page.keyboard.type("2");
    expect(await page.locator("#confirm-ok").isEnabled()).toBe(true);
    await page.evaluate("window.scrollTo(0, 0)");
    await page.screenshot({ path: shot("inspector-forget.png") });
    await page.keyboard.press("Enter");
    await eventually(() => page.locator("#status").textContent()).toMatch(/^forgot user 42: 119 memories, 6 conversation turns, \d+ kept versions, \d+ cursors$/);
    for (const prefix of [U42, ["episodes", "42"], ["memory_history", "users", "42"], ["memory_cursors", "users", "42"], ["episode_cursors", "episodes", "42"]]) {
      expect(await inner.count(prefix), prefix.join(".")).toBe(0);
    }
    expect(await inner.count(["users", "7"])).toBe(1);
    await eventually(() => page.locator("#namespaces button").allTextContents()).toEqual(["users.71"]);
    expect(problems).toEqual([]);
  });

  it("the JSON routes reject bad input with 400 and a message, and change nothing", async () => {
    const res = await session.app.inject({ method: "POST", url: "/inspector/api/forget", payload: { namespace: ["users", "7"], confirm: "8" } });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/forget needs confirm: "7" \(the user id/);
    for (const q of ["offset=-1", "limit=0", "limit=abc", "sort=random", "field=value"]) {
      const r = await session.app.inject({ method: "GET", url: `/inspector/api/memories?namespace=users.7&${q}` });
      expect(r.statusCode, q).toBe(400);
    }
    const bad = await session.app.inject({ method: "GET", url: "/inspector/api/memories?namespace=" + encodeURIComponent('["a.b"]') });
    expect(bad.statusCode).toBe(400);
    const restore = await session.app.inject({ method: "POST", url: "/inspector/api/restore", payload: { namespace: ["users", "7"], key: "fact-cello", version: 123 } });
    expect(restore.statusCode).toBe(400);
    expect(await inner.count(["users", "7"])).toBe(1);
  });
});
