/**
 * `npm run agent`: a langchain v1 `createAgent` with long-term memory
 * (`memoryMiddleware` from `langgraph-hnsw-memory/agent`), offline.
 *
 *   npm run agent                      # in a fresh temporary directory
 *   npm run agent -- --mode both       # memory tools as well as preload
 *   npm run agent -- --data DIR        # keep the store and threads in DIR
 *
 * The chat model is the OFFLINE SCRIPTED STAND-IN of the chatbot example (its
 * wording is rules, not a language model); memory is real. With
 * OPENAI_API_KEY set, pass `new ChatOpenAI(...)` to openMemoryAgent instead.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { forgetUser, memoryNamespace } from "../../src/index.js";
import { OFFLINE_MODEL_NOTICE, OfflineDemoModel } from "../chatbot/offline-model.js";
import { NAMESPACE, openMemoryAgent } from "./agent.js";

const { values } = parseArgs({ options: { data: { type: "string" }, mode: { type: "string", default: "preload" } } });
const mode = values.mode as "preload" | "postload" | "both";
if (!["preload", "postload", "both"].includes(mode)) throw new Error(`--mode must be preload, postload or both, got ${values.mode}`);
const dataDir = values.data ?? mkdtempSync(path.join(tmpdir(), "memory-agent-"));

console.log(`(${OFFLINE_MODEL_NOTICE}; mode: ${mode}; data: ${dataDir})`);
const { store, chat } = openMemoryAgent({ dataDir, model: new OfflineDemoModel(), mode });
const say = async (user: string, thread: string, text: string) => {
  console.log(`\n[user ${user}, thread ${thread}] ${text}`);
  console.log(`  agent: ${await chat(user, thread, text)}`);
};

try {
  await say("ann@example.com", "monday", "Hi! I'm vegetarian and I am allergic to peanuts.");
  await say("ann@example.com", "friday", "What should I cook for dinner?");
  await say("bob", "bob-1", "What should I cook for dinner?");

  const ann = memoryNamespace(NAMESPACE, { user_id: "ann@example.com" });
  const stored = await store.search(ann, { limit: 20 });
  console.log(`\nstored for ann@example.com under ${JSON.stringify(ann)}:`);
  for (const item of stored) console.log(`  [${item.key}] ${String(item.value.text)}`);
  console.log(`namespaces: ${JSON.stringify(await store.listNamespaces())}`);

  const forgotten = await forgetUser(store, NAMESPACE, { user_id: "ann@example.com" });
  console.log(`\nforgetUser: ${forgotten.memories} memories and ${forgotten.cursors} extraction cursors deleted`);
  await say("ann@example.com", "saturday", "What should I cook for dinner?");
} finally {
  await store.close();
}
