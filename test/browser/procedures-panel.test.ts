/**
 * The inspector's Procedures panel in a real headless Chromium (Debian's
 * chromium via playwright-core) on a real HNSWStore (FakeEmbeddings, a TEST
 * DOUBLE embedder: nothing here searches by meaning): pick an agent, read
 * its history, diff and restore a version, and check the store.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { listFeedback, recordFeedback } from "../../src/procedures/feedback.js";
import { ProcedureOptimizer } from "../../src/procedures/optimizer.js";
import { getProcedure, setProcedure } from "../../src/procedures/store.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { hasChromium, openInspector, shot, type InspectorSession } from "./inspector-harness.js";

describe.skipIf(!hasChromium)("inspector Procedures panel in headless Chromium", () => {
  let tmp: { dir: string; cleanup: () => void };
  let store: HNSWStore;
  let session: InspectorSession;
  let page: Page;
  let url: string;

  beforeAll(async () => {
    tmp = tempDir("procedures-panel-");
    store = new HNSWStore({ path: tmp.dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
    await setProcedure(store, { agentId: "bot" }, { instructions: "Be brief.", reason: "launch" });
    await setProcedure(store, { agentId: "bot" }, { instructions: "Be brief.\n<img src=x onerror=alert(1)> Shout.", reason: "planted", source: "optimizer:metaprompt" });
    await setProcedure(store, { agentId: "bot", userId: "amy" }, { instructions: "Answer in French.", reason: "Amy asked" });
    session = await openInspector({ store, onClose: async () => { await store.close(); tmp.cleanup(); } });
    ({ page, url } = session);
  }, 180_000);

  afterAll(() => session?.close());

  it("shows an agent's versions as text, diffs one and restores it after the in-page confirmation", async () => {
    await page.goto(url + "/");
    await page.click('nav button[data-view="procedures"]');
    await page.locator("#proc-agents button", { hasText: "bot (agent)" }).click();
    await expect.poll(() => page.locator("#proc-rows tr").count()).toBe(2);
    expect(await page.locator("#proc-current").textContent()).toBe("Be brief.\n<img src=x onerror=alert(1)> Shout.");
    expect(await page.locator("#proc-current img").count()).toBe(0); // text, never markup
    await page.locator('#proc-rows tr[data-version="1"] button', { hasText: "Diff" }).click();
    await expect.poll(() => page.locator("#proc-diff .add").textContent()).toContain("Shout.");
    await page.screenshot({ path: shot("inspector-procedures.png") });
    const restore = page.locator('#proc-rows tr[data-version="1"] button', { hasText: "Restore" });
    await restore.click();
    await expect.poll(() => page.locator("#confirm-title").textContent()).toBe("Restore version 1?");
    await page.click("#confirm-cancel");
    await expect.poll(() => page.locator("#proc-status").textContent()).toBe("not restored");
    expect(await getProcedure(store, { agentId: "bot" })).toMatchObject({ version: 2 });
    await restore.click();
    await page.click("#confirm-ok");
    await expect.poll(() => page.locator("#proc-status").textContent()).toBe("restored version 1 as version 3");
    expect(await getProcedure(store, { agentId: "bot" })).toMatchObject({ version: 3, instructions: "Be brief.", source: "restore" });
    await page.locator("#proc-agents button", { hasText: "bot · amy" }).click();
    await expect.poll(() => page.locator("#proc-current").textContent()).toBe("Answer in French.");
    expect(await page.locator("#proc-cut").isHidden()).toBe(true); // everything fits
    // Agent-wide instructions near the budget: the cut is shown, and the user's layer is still sent.
    await setProcedure(store, { agentId: "bot" }, { instructions: Array.from({ length: 400 }, (_, i) => `Agent rule ${i + 1}.`).join("\n"), reason: "long", limits: { maxChars: 10_000, maxChangedLines: Infinity } });
    await page.locator("#proc-agents button", { hasText: "bot (agent)" }).click();
    await page.locator("#proc-agents button", { hasText: "bot · amy" }).click();
    await expect.poll(() => page.locator("#proc-cut").textContent()).toMatch(/Section budget \(1000 tokens\): \d+ agent-wide and 0 user line\(s\) are left out/);
    expect(session.problems).toEqual([]); // no page error, no CSP violation under the strict headers
  });

  it("shows proposals kept for review as text, diffs one, applies it after confirmation and dismisses another", async () => {
    const amy = { agentId: "bot", userId: "amy" };
    const proposed = "Answer in French.\n<b>Bold</b> headings.\nShort lines.\nNo emoji.";
    const rewrite = (text: string) => JSON.stringify({ rationale: "r", instructions: text });
    // A scripted TEST DOUBLE model: rewrites over maxChangedLines 2, so each run is kept for review.
    const optimizer = new ProcedureOptimizer({ model: new ScriptedChatModel({ turns: [rewrite(proposed), rewrite(proposed), rewrite("A.\nB.\nC."), rewrite("A.\nB.\nC.")] }), logger: { warn: () => {}, error: () => {} }, limits: { maxChangedLines: 2 } });
    const ids: string[] = [];
    for (const correction of ["Use headings.", "Be terse."]) {
      ids.push((await recordFeedback(store, { ...amy, threadId: correction, correction })).id);
      await optimizer.learn(store, amy);
    }
    await page.goto(url + "/");
    await page.click('nav button[data-view="procedures"]');
    await page.locator("#proc-agents button", { hasText: "bot · amy" }).click();
    await expect.poll(() => page.locator("#proc-reviews tr").count()).toBe(2);
    const first = page.locator(`#proc-reviews tr[data-feedback="${ids[0]}"]`);
    expect(await first.locator("td").nth(4).textContent()).toBe("ready");
    await first.locator("button", { hasText: "Diff" }).click();
    await expect.poll(() => page.locator("#proc-diff").textContent()).toContain("+ <b>Bold</b> headings.");
    expect(await page.locator("#proc-diff b").count()).toBe(0); // text, never markup
    await first.locator("button", { hasText: "Apply" }).click();
    await expect.poll(() => page.locator("#confirm-title").textContent()).toBe("Apply this proposal?");
    await page.click("#confirm-ok");
    await expect.poll(() => page.locator("#proc-status").textContent()).toMatch(/^applied as version \d+$/);
    expect(await getProcedure(store, amy)).toMatchObject({ instructions: proposed, source: "review" });
    // The other proposal was made from the version before: the row says so.
    const second = page.locator(`#proc-reviews tr[data-feedback="${ids[1]}"]`);
    await expect.poll(() => second.locator("td").nth(4).textContent()).toMatch(/^made from v\d+, now v\d+$/);
    await second.locator("button", { hasText: "Dismiss" }).click();
    await page.click("#confirm-ok");
    await expect.poll(() => page.locator("#proc-status").textContent()).toBe("dismissed");
    expect(await page.locator("#proc-review-box").isHidden()).toBe(true);
    expect((await listFeedback(store, { ...amy, pending: false })).map((r) => r.status).sort()).toEqual(["applied", "rejected"]);
    expect(session.problems).toEqual([]);
  });
});
