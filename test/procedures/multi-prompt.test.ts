/**
 * MultiPromptOptimizer: one stream of feedback for an agent with several
 * named prompts; each piece of feedback updates only the prompts it
 * concerns. The optimizer's model is a scripted TEST DOUBLE
 * (`attributingOptimizer`: keyword attribution + the gullible rewrite).
 * Store: InMemoryStore.
 */
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, ProcedureChangeRejectedError } from "../../src/errors.js";
import { listFeedback, recordFeedback } from "../../src/procedures/feedback.js";
import { MultiPromptOptimizer } from "../../src/procedures/multi-prompt.js";
import { ProcedureOptimizer } from "../../src/procedures/optimizer.js";
import { ATTRIBUTION_PROMPT } from "../../src/procedures/prompts.js";
import { getProcedure, setProcedure } from "../../src/procedures/store.js";
import { ScriptedChatModel, type ScriptedTurn } from "../helpers/scripted-chat-model.js";
import { attributingOptimizer } from "../helpers/scripted-optimizer.js";

const quiet = { warn: () => {}, error: () => {} };
const topics = { tone: /formal|friendly|tone/i, tools: /search|tool|lookup/i, escalation: /human|escalat|manager/i };
const model = (turns: ScriptedTurn[] = []) => new ScriptedChatModel({ turns, fallback: attributingOptimizer(topics) });
const prompts = [
  { name: "tone", whenToUpdate: "feedback about style or tone", updateInstructions: "one line per rule" },
  { name: "tools", whenToUpdate: "feedback about which tool to use" },
  { name: "escalation", whenToUpdate: "feedback about handing over to a person" },
];

async function world() {
  const store = new InMemoryStore();
  for (const p of prompts) await setProcedure(store, { agentId: "bot", userId: "ann", name: p.name }, { instructions: `Start ${p.name}.`, reason: "start" });
  return store;
}

describe("MultiPromptOptimizer", () => {
  it("updates only the prompts a piece of feedback concerns, with their guidance", async () => {
    const store = await world();
    const m = model();
    const multi = new MultiPromptOptimizer({ optimizer: new ProcedureOptimizer({ model: m, logger: quiet }), prompts });
    const a = await recordFeedback(store, { agentId: "bot", userId: "ann", threadId: "t1", correction: "Be less formal." });
    const b = await recordFeedback(store, { agentId: "bot", userId: "ann", threadId: "t2", score: 1, comment: "Perfect, thanks." });
    const result = await multi.learn(store, { agentId: "bot", userId: "ann" });
    // (order: oldest first; both may share a millisecond)
    expect(result.attribution).toHaveLength(2);
    expect(result.attribution).toEqual(expect.arrayContaining([
      { feedbackId: a.id, prompts: ["tone"], by: "model" },
      { feedbackId: b.id, prompts: [], by: "model" },
    ]));
    expect(Object.keys(result.results)).toEqual(["tone"]);
    expect(m.calls).toHaveLength(2); // attribution + tone's rewrite
    const attributionInput = String(m.calls[0][1].content);
    expect(String(m.calls[0][0].content)).toBe(ATTRIBUTION_PROMPT);
    expect(attributionInput).toContain('<prompt name="escalation">');
    expect(attributionInput).toContain("feedback about handing over to a person");
    expect(String(m.calls[1][1].content)).toContain("<update_instructions>\none line per rule\n</update_instructions>");
    expect((await getProcedure(store, { agentId: "bot", userId: "ann", name: "tone" }))?.instructions).toBe("Start tone.\nBe less formal.");
    for (const name of ["tools", "escalation"]) expect((await getProcedure(store, { agentId: "bot", userId: "ann", name }))?.version).toBe(1);
    expect(await listFeedback(store, { agentId: "bot", userId: "ann" })).toEqual([]);
    const all = await listFeedback(store, { agentId: "bot", userId: "ann", pending: false });
    expect(all.find((f) => f.id === a.id)).toMatchObject({ status: "applied", appliedIn: [{ name: "tone", version: 2 }] });
    expect(all.find((f) => f.id === b.id)).toMatchObject({ status: "used" });
  });

  it("feedback about two prompts changes both; feedback aimed by the caller skips the attribution call", async () => {
    const store = await world();
    const m = model();
    const multi = new MultiPromptOptimizer({ optimizer: new ProcedureOptimizer({ model: m, logger: quiet }), prompts });
    await recordFeedback(store, { agentId: "bot", userId: "ann", threadId: "t1", correction: "Use the search tool, and offer a human when stuck." });
    await multi.learn(store, { agentId: "bot", userId: "ann" });
    expect((await getProcedure(store, { agentId: "bot", userId: "ann", name: "tools" }))?.version).toBe(2);
    expect((await getProcedure(store, { agentId: "bot", userId: "ann", name: "escalation" }))?.version).toBe(2);
    expect((await getProcedure(store, { agentId: "bot", userId: "ann", name: "tone" }))?.version).toBe(1);

    const aimed = model();
    const multi2 = new MultiPromptOptimizer({ optimizer: new ProcedureOptimizer({ model: aimed, logger: quiet }), prompts });
    await recordFeedback(store, { agentId: "bot", userId: "ann", threadId: "t2", correction: "Say goodbye politely.", prompt: "tone" });
    const r = await multi2.learn(store, { agentId: "bot", userId: "ann" });
    expect(r.attribution[0].by).toBe("caller");
    expect(aimed.calls).toHaveLength(1);
    expect(String(aimed.calls[0][0].content)).not.toBe(ATTRIBUTION_PROMPT);
  });

  it("an unparseable attribution leaves the feedback pending; nothing changes", async () => {
    const store = await world();
    const multi = new MultiPromptOptimizer({ optimizer: new ProcedureOptimizer({ model: model(["hmm", "not sure"]), logger: quiet }), prompts });
    const f = await recordFeedback(store, { agentId: "bot", userId: "ann", threadId: "t1", correction: "Be friendlier." });
    const r = await multi.learn(store, { agentId: "bot", userId: "ann" });
    expect(r.pendingIds).toEqual([f.id]);
    expect(r.attributionCost?.calls).toBe(2);
    expect((await listFeedback(store, { agentId: "bot", userId: "ann" })).map((x) => x.id)).toEqual([f.id]);
  });

  it("keeps the agent-wide policy, and refuses bad options", async () => {
    const store = await world();
    const multi = new MultiPromptOptimizer({ optimizer: new ProcedureOptimizer({ model: model(), logger: quiet }), prompts });
    await expect(multi.learn(store, { agentId: "bot" })).rejects.toThrow(ProcedureChangeRejectedError);
    const opt = new ProcedureOptimizer({ model: model(), logger: quiet });
    expect(() => new MultiPromptOptimizer({ optimizer: opt, prompts: [] })).toThrow(InvalidArgumentError);
    expect(() => new MultiPromptOptimizer({ optimizer: opt, prompts: [{ name: "a" }, { name: "a" }] })).toThrow(/twice/);
    expect(() => new MultiPromptOptimizer({ optimizer: opt, prompts: [{ name: "a b" }] })).toThrow(InvalidArgumentError);
    expect(() => new MultiPromptOptimizer({ optimizer: opt, prompts: [{ name: "a", when: "x" }] } as never)).toThrow(/no field/);
    expect(() => new MultiPromptOptimizer({ optimizer: {} as never, prompts })).toThrow(InvalidArgumentError);
  });
});
