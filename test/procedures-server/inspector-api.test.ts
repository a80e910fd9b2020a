/**
 * The inspector's procedure routes over real HTTP on 127.0.0.1: the memory
 * server (API key + a TEST bearer auth for end users) with the inspector
 * plugin, on a real HNSWStore (FakeEmbeddings, a TEST DOUBLE embedder).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { listFeedback, recordFeedback } from "../../src/procedures/feedback.js";
import { ProcedureOptimizer } from "../../src/procedures/optimizer.js";
import { getProcedure, setProcedure } from "../../src/procedures/store.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { API_KEY, asUser, call, startTestServer, type TestServer } from "../server/support.js";

const key = { "x-api-key": API_KEY };
let server: TestServer;
beforeEach(async () => {
  server = await startTestServer({ server: { plugins: [async (app) => app.register(inspectorPlugin, { store: app.memoryStore })] } });
  await setProcedure(server.store, { agentId: "bot" }, { instructions: "Be brief.", reason: "launch" });
  await setProcedure(server.store, { agentId: "bot" }, { instructions: "Be brief.\nShout.", reason: "bad", source: "optimizer:gradient" });
  await setProcedure(server.store, { agentId: "bot", userId: "amy" }, { instructions: "Answer in French.", reason: "Amy asked" });
});
afterEach(async () => {
  await server.close();
});

describe("inspector procedure routes", () => {
  it("lists agents, shows history and a diff, and restores a version (services only)", async () => {
    const list = await call(server.url, "GET", "/inspector/api/procedures", undefined, key);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ agents: [{ agentId: "bot", agentWide: true, users: ["amy"] }] });

    const history = await call(server.url, "GET", "/inspector/api/procedures/history?agent=bot", undefined, key);
    expect((history.body as { history: { version: number; source: string }[] }).history.map((r) => [r.version, r.source])).toEqual([
      [2, "optimizer:gradient"],
      [1, "api"],
    ]);
    const diff = await call(server.url, "GET", "/inspector/api/procedures/diff?agent=bot&from=1", undefined, key);
    expect(diff.body).toMatchObject({ from: 1, to: 2, added: 1, removed: 0, text: "  Be brief.\n+ Shout." });

    const restored = await call(server.url, "POST", "/inspector/api/procedures/restore", { agent: "bot", version: 1, reason: "no shouting" }, key);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ record: { version: 3, source: "restore", restoredFrom: 1, reason: "no shouting" }, changed: true });
    expect((await getProcedure(server.store, { agentId: "bot" }))?.instructions).toBe("Be brief.");

    const amy = await call(server.url, "GET", "/inspector/api/procedures/history?agent=bot&user=amy", undefined, key);
    expect((amy.body as { history: { instructions: string }[] }).history[0].instructions).toBe("Answer in French.");
  });

  it("shows the section a model call gets and what its budget leaves out", async () => {
    const fits = await call(server.url, "GET", "/inspector/api/procedures/section?agent=bot&user=amy", undefined, key);
    expect(fits.body).toMatchObject({ maxTokens: 1000, cut: { agent: 0, user: 0 } });
    expect((fits.body as { text: string }).text).toContain("For this user:\nAnswer in French.");
    const tight = await call(server.url, "GET", "/inspector/api/procedures/section?agent=bot&user=amy&maxTokens=50", undefined, key);
    expect(tight.body).toMatchObject({ maxTokens: 50, cut: { agent: 0, user: 1 } }); // the user's heading and line need more than half of what is left
    expect((await call(server.url, "GET", "/inspector/api/procedures/section?agent=bot&maxTokens=0", undefined, key)).status).toBe(400);
    expect((await call(server.url, "GET", "/inspector/api/procedures/section?agent=bot", undefined, asUser("amy"))).status).toBe(403);
  });

  it("refuses end users and anonymous callers, and bad input with 400, changing nothing", async () => {
    for (const [method, path, body] of [
      ["GET", "/inspector/api/procedures", undefined],
      ["GET", "/inspector/api/procedures/history?agent=bot", undefined],
      ["POST", "/inspector/api/procedures/restore", { agent: "bot", version: 1 }],
    ] as const) {
      expect((await call(server.url, method, path, body)).status).toBe(401);
      expect((await call(server.url, method, path, body, asUser("amy"))).status).toBe(403);
    }
    expect((await call(server.url, "POST", "/inspector/api/procedures/restore", { agent: "bot", version: 9 }, key)).status).toBe(400);
    expect((await call(server.url, "POST", "/inspector/api/procedures/restore", { agent: "bot", version: "1; drop" }, key)).status).toBe(400);
    expect((await call(server.url, "POST", "/inspector/api/procedures/restore", { version: 1 }, key)).status).toBe(400);
    expect((await call(server.url, "GET", "/inspector/api/procedures/diff?agent=bot&from=0", undefined, key)).status).toBe(400);
    expect((await getProcedure(server.store, { agentId: "bot" }))?.version).toBe(2);
  });

  it("lists, applies and dismisses proposals kept for review (services only)", async () => {
    const amy = { agentId: "bot", userId: "amy" };
    const rewrite = (p: string) => JSON.stringify({ rationale: "r", instructions: `${p} one.\n${p} two.\n${p} three.` });
    // A scripted TEST DOUBLE model: rewrites too large for maxChangedLines 2, so each run is kept for review.
    const optimizer = new ProcedureOptimizer({ model: new ScriptedChatModel({ turns: [rewrite("A"), rewrite("A"), rewrite("B"), rewrite("B")] }), logger: { warn: () => {}, error: () => {} }, limits: { maxChangedLines: 2 } });
    const ids: string[] = [];
    for (const correction of ["first", "second"]) {
      ids.push((await recordFeedback(server.store, { ...amy, threadId: correction, correction })).id);
      await optimizer.learn(server.store, amy);
    }
    const listed = await call(server.url, "GET", "/inspector/api/procedures/reviews?agent=bot&user=amy", undefined, key);
    expect(listed.status).toBe(200);
    const reviews = (listed.body as { reviews: { feedbackIds: string[]; current: boolean; diff: { added: number } }[] }).reviews;
    expect(reviews.map((r) => [r.feedbackIds, r.current, r.diff.added])).toEqual([
      [[ids[1]], true, 3],
      [[ids[0]], true, 3],
    ]);
    for (const [path, body] of [
      ["/inspector/api/procedures/reviews/apply", { agent: "bot", user: "amy", feedback: ids[0] }],
      ["/inspector/api/procedures/reviews/dismiss", { agent: "bot", user: "amy", feedback: ids[0] }],
    ] as const) {
      expect((await call(server.url, "POST", path, body)).status).toBe(401);
      expect((await call(server.url, "POST", path, body, asUser("amy"))).status).toBe(403);
    }
    expect((await call(server.url, "POST", "/inspector/api/procedures/reviews/apply", { agent: "bot", user: "amy", feedback: ids[0], force: "yes" }, key)).status).toBe(400);
    expect((await call(server.url, "POST", "/inspector/api/procedures/reviews/apply", { agent: "bot", user: "amy", feedback: "nope" }, key)).status).toBe(404);

    const applied = await call(server.url, "POST", "/inspector/api/procedures/reviews/apply", { agent: "bot", user: "amy", feedback: ids[0], reason: "fine" }, key);
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ record: { version: 2, source: "review", instructions: "A one.\nA two.\nA three." }, feedbackIds: [ids[0]] });
    const stale = await call(server.url, "POST", "/inspector/api/procedures/reviews/apply", { agent: "bot", user: "amy", feedback: ids[1] }, key);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: "ProcedureConflictError", reason: "conflict" });
    expect((await call(server.url, "POST", "/inspector/api/procedures/reviews/dismiss", { agent: "bot", user: "amy", feedback: ids[1] }, key)).status).toBe(200);
    expect((await listFeedback(server.store, { ...amy, pending: false })).map((r) => r.status).sort()).toEqual(["applied", "rejected"]);
    expect((await getProcedure(server.store, amy))?.version).toBe(2);
  });
});
