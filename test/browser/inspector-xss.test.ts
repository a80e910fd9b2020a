/**
 * Markup in stored data stays text in the inspector: namespace labels, keys,
 * texts, sources, values (the JSON view), kept versions and conversation
 * turns full of HTML and script are shown literally, create no element and
 * run nothing (real headless Chromium, strict CSP, FakeEmbeddings TEST DOUBLE).
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { ProtectedStore } from "../../src/privacy/protected-store.js";
import { recordEpisodes } from "../../src/episodes/record.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { eventually, hasChromium, openInspector, type InspectorSession } from "./inspector-harness.js";

const X = (tag: string) => `<img src=x onerror="self['__xss']='${tag}'"><script>self['__xss']='${tag}'</script><b>${tag}</b>`;
const NS = ["users", `<svg onload="self['__xss']='ns'">`];

describe.skipIf(!hasChromium)("inspector and hostile data", () => {
  let tmp: { dir: string; cleanup: () => void };
  let inner: HNSWStore;
  let session: InspectorSession;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    tmp = tempDir("inspector-xss-");
    inner = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings(), fields: ["text"] } });
    const store = new ProtectedStore(inner, { history: true });
    await store.put(NS, `"><img src=x onerror="self['__xss']='key'">`, { text: X("text"), source: X("source"), [X("field")]: X("value") });
    await store.put(NS, `"><img src=x onerror="self['__xss']='key'">`, { text: X("text2"), source: "tool" });
    await recordEpisodes({ store, namespace: ["episodes", X("ep")], threadId: X("thread"), speakers: { user: X("speaker") }, messages: [{ role: "user", content: X("turn") }] });
    session = await openInspector({ store, title: X("title"), onClose: () => tmp.cleanup() });
    ({ page, problems } = session);
    await page.goto(session.url + "/");
  }, 180_000);

  afterAll(() => session?.close());

  const injected = () => page.evaluate("document.querySelectorAll('main img, main script, main svg, header img, header script, dialog img, dialog script').length");

  it("shows memories, their JSON and history as text", async () => {
    expect(await page.title()).toBe(X("title"));
    await page.locator("#namespaces button").first().click();
    await eventually(() => page.locator("#rows td.text").first().textContent()).toBe(X("text2"));
    await page.click("#rows button.details");
    await eventually(() => page.locator("#history li .vtext").first().textContent()).toBe(X("text"));
    const json = JSON.parse((await page.locator("#detail-json").textContent())!);
    expect(json.namespace).toEqual(NS);
    await page.locator("#history li button", { hasText: "Show JSON" }).click();
    expect(await page.locator("#history li pre").textContent()).toContain(X("value").replace(/"/g, '\\"'));
    await page.click("#detail-close");
    await page.click("#rows button.delete");
    expect(await page.locator("#confirm-message").textContent()).toBe(X("text2"));
    await page.keyboard.press("Escape");
    expect(await injected()).toBe(0);
  });

  it("shows conversations as text", async () => {
    await page.click('nav button[data-view="episodes"]');

    await page.locator("#ep-namespaces button").first().click();
    await page.locator("#threads button").first().click();
    await eventually(() => page.locator("#turns li.turn p").first().textContent()).toBe(X("turn"));
    expect(await page.locator("#turns li.turn .who b").first().textContent()).toBe(X("speaker"));
    expect(await page.locator("#threads .tid").first().textContent()).toBe(X("thread"));
    await page.click("#ep-forget");
    expect(await page.locator("#confirm-title").textContent()).toContain(X("ep"));
    await page.keyboard.press("Escape");
    expect(await injected()).toBe(0);
    expect(await page.evaluate("window.__xss")).toBeUndefined();
    expect(problems).toEqual([]);
    expect(await inner.count(["episodes", X("ep")])).toBe(1);
  });
});
