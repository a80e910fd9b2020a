import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { collectOutput, type ChildOutput } from "../helpers/spawn-child.js";

export const root = path.resolve(import.meta.dirname, "../..");
export const CLI = path.join(root, "src/cli/main.ts");
export const FAKE = path.join(root, "test/cli/fixtures/fake-embedder.ts");
export const SLOW = path.join(root, "test/cli/fixtures/slow-embedder.ts");

export type CliResult = ChildOutput;

/** Spawns the real CLI (from source, under tsx). */
export function spawnCli(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
    cwd: root,
    env: { ...process.env, LANGGRAPH_MEMORY_PATH: "", OPENAI_API_KEY: "", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs the CLI to completion. */
export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<CliResult> {
  const child = spawnCli(args, options.env);
  return collect(child, options.input);
}

export const collect = collectOutput;

/** A store directory with a few memories (FakeEmbeddings, 16 dims) and an extraction cursor. */
export async function seedStore(dir: string, extra = 0): Promise<void> {
  const store = new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } });
  await store.put(["users", "42"], "berlin", { text: "User lives in Berlin.", source: "extractor" });
  await store.put(["users", "42"], "tea", { text: "User likes green tea.", source: "tool" }, undefined, { ttl: 60 });
  await store.put(["users", "42"], "tea", { text: "User likes green tea a lot.", source: "tool" }, undefined, { ttl: 60 });
  await store.put(["users", "7"], "cello", { text: "User plays the cello." });
  await store.put(["users", "7"], "raw", { note: "not indexed" }, false);
  await store.put(["memory_cursors", "users", "42"], "thread-1", { processed: 4, last: "abc", updatedAt: "2026-01-01" }, false);
  if (extra) await store.batch(Array.from({ length: extra }, (_, i) => ({ namespace: ["bulk", String(i % 10)], key: `k${i}`, value: { text: `bulk memory number ${i} about topic ${i % 37}` } })));
  await store.close();
}
