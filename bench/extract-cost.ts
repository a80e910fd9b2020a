/**
 * Cost of memory extraction over a scripted 40-turn conversation: LLM calls
 * and prompt characters spent by the extractor when it re-reads the whole
 * thread every turn ("inline, full thread") versus when it only reads the
 * messages after its per-thread cursor ("incremental").
 *
 * There is no LLM here: the model is a scripted TEST DOUBLE that answers
 * extraction and consolidation prompts by rule, the way a perfect model
 * would, so that every strategy ends with the same memories and only the
 * cost differs. The store is an InMemoryStore over the deterministic fake
 * embedder (a TEST DOUBLE too). Run: npm run bench:extract
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { MemoryExtractor } from "../src/extract/extractor.js";
import { CONSOLIDATION_PROMPT } from "../src/extract/prompts.js";
import { ScriptedChatModel } from "../test/helpers/scripted-chat-model.js";
import { FakeEmbeddings } from "../test/helpers/fake-embeddings.js";

/** User turns; those with a fact say which fact (slot → text) a perfect extractor would keep. */
const FACTS: Record<number, [slot: string, fact: string]> = {
  1: ["name", "User's name is Ann."],
  4: ["city", "User lives in Berlin."],
  7: ["job", "User works as a nurse."],
  10: ["pet", "User has a cat named Miso."],
  13: ["tea", "User prefers green tea."],
  16: ["lang", "User wants answers in Portuguese."],
  20: ["sister", "User's sister is called Rita."],
  24: ["city", "User lives in Lisbon."],
  28: ["hobby", "User plays chess on weekends."],
  32: ["diet", "User is vegetarian."],
  35: ["trip", "User plans a trip to Japan in May."],
  38: ["tone", "User prefers short answers."],
};
const SAY: Record<number, string> = {
  1: "Hi, I'm Ann.",
  4: "I live in Berlin, near the river.",
  7: "I work as a nurse, mostly night shifts.",
  10: "My cat Miso keeps me company.",
  13: "Green tea is what I always drink.",
  16: "Please answer me in Portuguese from now on.",
  20: "My sister Rita is visiting next week.",
  24: "Big news: I just moved to Lisbon!",
  28: "On weekends I play chess.",
  32: "I'm vegetarian, by the way.",
  35: "I'm planning a trip to Japan in May.",
  38: "Keep your answers short, please.",
};
const TURNS = 40;
const userLine = (i: number) => SAY[i] ?? `Question ${i}: can you help me rephrase this paragraph about topic ${i} so it reads a bit better?`;
const assistantLine = (i: number) => `Sure. Here is a clearer version of what you wrote in turn ${i}, with the same meaning and a friendlier tone.`;

/** TEST DOUBLE: answers like a perfect model, by rule. */
function oracle(messages: BaseMessage[]): string {
  const system = String(messages[0].content);
  const user = String(messages[messages.length - 1].content);
  if (system.startsWith(CONSOLIDATION_PROMPT)) {
    const existing = [...user.matchAll(/^(m\d+): (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
    const fresh = [...user.matchAll(/^(f\d+): (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
    return JSON.stringify(
      fresh.map((f) => {
        const same = existing.find((e) => e.text === f.text);
        if (same) return { fact: f.id, action: "NONE", id: same.id };
        const slot = Object.values(FACTS).find(([, t]) => t === f.text)?.[0];
        const old = existing.find((e) => Object.values(FACTS).some(([s, t]) => s === slot && t === e.text));
        return old ? { fact: f.id, action: "UPDATE", id: old.id, text: f.text } : { fact: f.id, action: "ADD" };
      }),
    );
  }
  const bySlot = new Map<string, string>();
  for (const [i, text] of Object.entries(SAY)) if (user.includes(text)) bySlot.set(FACTS[Number(i)][0], FACTS[Number(i)][1]);
  return JSON.stringify([...bySlot.values()]);
}

interface Row {
  strategy: string;
  extractions: number;
  llmCalls: number;
  consolidationCalls: number;
  promptChars: number;
  maxPromptChars: number;
  memories: number;
}

async function run(strategy: string, every: number, incremental: boolean): Promise<Row & { texts: string[] }> {
  const model = new ScriptedChatModel({ turns: [], fallback: oracle });
  const extractor = new MemoryExtractor({ model, structuredOutput: false, logger: { warn: () => {}, error: console.error } });
  const store = new InMemoryStore({ index: { dims: 256, embeddings: new FakeEmbeddings({ dims: 256 }), fields: ["text"] } });
  const ns = ["users", "ann"];
  const thread: BaseMessage[] = [];
  let extractions = 0;
  for (let i = 1; i <= TURNS; i++) {
    thread.push(new HumanMessage({ id: `u${i}`, content: userLine(i) }), new AIMessage({ id: `a${i}`, content: assistantLine(i) }));
    if (i % every === 0 || i === TURNS) {
      extractions++;
      await extractor.save(store, thread, ns, incremental ? { threadId: "t1" } : {});
    }
  }
  const sizes = model.calls.map((call) => call.reduce((n, m) => n + String(m.content).length, 0));
  const items = await store.search(ns, { limit: 100 });
  return {
    strategy,
    extractions,
    llmCalls: model.calls.length,
    consolidationCalls: model.calls.filter((c) => String(c[0].content).startsWith(CONSOLIDATION_PROMPT)).length,
    promptChars: sizes.reduce((a, b) => a + b, 0),
    maxPromptChars: Math.max(...sizes),
    memories: items.length,
    texts: items.map((i) => String(i.value.text)).sort(),
  };
}

const results = [
  await run("inline, full thread every turn", 1, false),
  await run("incremental (cursor), every turn", 1, true),
  await run("incremental, debounced (1 run per 5 turns)", 5, true),
];
const same = results.every((r) => JSON.stringify(r.texts) === JSON.stringify(results[0].texts));
console.table(results.map(({ texts: _t, ...row }) => row));
console.log(`final memories identical across strategies: ${same}`);
console.log(results[0].texts.join("\n"));
const saving = 1 - results[1].promptChars / results[0].promptChars;
console.log(`incremental saves ${(saving * 100).toFixed(1)}% of prompt characters vs full re-extraction`);

const machine = { cpus: cpus().length, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version };
await mkdir(new URL("./results/", import.meta.url), { recursive: true });
await writeFile(
  new URL("./results/extract-cost.json", import.meta.url),
  JSON.stringify({ date: new Date().toISOString(), machine, turns: TURNS, sameFinalMemories: same, results }, null, 2) + "\n",
);
if (!same) {
  console.error("strategies ended with different memories");
  process.exitCode = 1;
}
