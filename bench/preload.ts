/**
 * Benchmark: the latency preload adds to one turn.
 *
 * 10,000 memories in the store (50 users × 200 memories each), recalled for
 * one user per turn, exactly as callModel does it (wait for pending writes,
 * search with the latest human message, fill with the newest, format the
 * memory-context message). Two modes:
 *   - with embedding: the real USE-lite embedder embeds each (distinct) query;
 *   - search only: the query vectors were computed beforehand.
 * Also times the whole callModel node (preload vs none) with an instant
 * scripted model (a TEST DOUBLE, no LLM) to show the node adds nothing more,
 * the `remember` tool against a plain put (embedding and fsync included),
 * and the event loop's delay (perf_hooks.monitorEventLoopDelay: p99, max)
 * during the 10k bulk import and during recall, with USE-lite in its worker
 * thread, and for reference a 1,000-memory import with it on the main thread.
 * Then, on the same store, 10,000 conversation turns are recorded as one
 * user's episodes and the preload with facts AND episodes is timed (the path
 * callModel and withMemory take with `episodes` on; one query embedding per
 * turn for both kinds), live and with the query vector precomputed
 * (bench/lib/preload-episodes.ts). The load average is recorded at start and end.
 *
 * Run: npm run bench:preload  → bench/results/preload.json
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Embeddings } from "@langchain/core/embeddings";
import { HumanMessage } from "@langchain/core/messages";
import { UniversalSentenceEncoderEmbeddings } from "../src/embeddings/universal-sentence-encoder.js";
import { callModel } from "../src/graph/call-model.js";
import { createMemoryTools } from "../src/graph/tools.js";
import { formatMemoryContext } from "../src/graph/format-memories.js";
import { waitForPendingWrites } from "../src/scope/pending-writes.js";
import { recallMemories } from "../src/graph/recall.js";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { ScriptedChatModel } from "../test/helpers/scripted-chat-model.js";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { DETAILS, SUBJECTS, userFacts, VERBS } from "./lib/memory-facts.js";
import { benchPreloadWithEpisodes } from "./lib/preload-episodes.js";

const USERS = 50;
const PER_USER = 200;
const TURNS = Number(process.env.BENCH_TURNS ?? 300);
const WARMUP = 20;
const EPISODE_TURNS = Number(process.env.BENCH_EPISODE_TURNS ?? 10_000);

/** Delegates to USE-lite, except for queries whose vectors were precomputed. */
class SwitchableEmbeddings extends Embeddings {
  readonly precomputed = new Map<string, number[]>();
  /** USE-lite is symmetric, and so is this wrapper. */
  readonly symmetric = true;
  /** Queries embedded by USE-lite (not precomputed). */
  liveQueries = 0;
  constructor(readonly inner: UniversalSentenceEncoderEmbeddings) {
    super({});
  }
  get dims(): number {
    return this.inner.dims;
  }
  embedDocuments(texts: string[]): Promise<number[][]> {
    return this.inner.embedDocuments(texts);
  }
  async embedQuery(text: string): Promise<number[]> {
    const v = this.precomputed.get(text);
    if (v) return v;
    this.liveQueries++;
    return this.inner.embedQuery(text);
  }
}

const facts = (user: number): string[] => userFacts(user, PER_USER);
const QUESTIONS = ["What should I do this weekend", "Any tips for my hobby", "Plan a trip for me", "What gift would I like", "Suggest something relaxing"];
const query = (i: number) => `${QUESTIONS[i % QUESTIONS.length]}? Turn ${i}, ${SUBJECTS[i % SUBJECTS.length]} maybe.`;

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
  const r = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, p50: r(at(50)), p95: r(at(95)), p99: r(at(99)), mean: r(s.reduce((a, b) => a + b, 0) / s.length), max: r(s[s.length - 1]) };
}

/** Event-loop delay while `fn` runs: p99 and max in ms (10 ms timer resolution). */
async function loopDelay<T>(fn: () => Promise<T>): Promise<{ result: T; p99: number; max: number; mean: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  try {
    const result = await fn();
    h.disable();
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    return { result, p99: ms(h.percentile(99)), max: ms(h.max), mean: ms(h.mean) };
  } finally {
    h.disable();
  }
}

const check = (target: string, value: string, met: boolean) => ({ target, value, met });

const loadAverage = () => os.loadavg().map((x) => Math.round(x * 100) / 100);

async function main(): Promise<void> {
  const loadAtStart = loadAverage();
  console.log(`load average at start (1, 5, 15 min): ${loadAtStart.join(", ")}`);
  const use = new UniversalSentenceEncoderEmbeddings();
  const embeddings = new SwitchableEmbeddings(use);
  const dir = await mkdtemp(join(os.tmpdir(), "bench-preload-"));
  const store = new HNSWStore({ path: dir, index: { dims: use.dims, embeddings, fields: ["text"] } });
  const name = "HNSWStore";
  try {
    let t = performance.now();
    await use.embedQuery("load the model");
    const loadMs = performance.now() - t;
    // Reference: 1,000 memories embedded on the main thread, into a store of their own.
    const mainDir = await mkdtemp(join(os.tmpdir(), "bench-preload-main-"));
    const mainStore = new HNSWStore({ path: mainDir, index: { dims: use.dims, embeddings: new UniversalSentenceEncoderEmbeddings({ thread: "main" }), fields: ["text"] } });
    await mainStore.put(["warm"], "up", { text: "load the model on the main thread" });
    const mainImport = await loopDelay(async () => {
      for (let u = 0; u < 5; u++) {
        await mainStore.batch(facts(1000 + u).map((text, i) => ({ namespace: ["users", `m${u}`], key: `m${i}`, value: { text }, index: ["text"] })));
      }
    });
    await mainStore.close();
    await rm(mainDir, { recursive: true, force: true });
    console.log(`main-thread import of 1,000: event-loop delay p99 ${mainImport.p99} ms, max ${mainImport.max} ms`);

    t = performance.now();
    const bulkImport = await loopDelay(async () => {
      for (let u = 0; u < USERS; u++) {
        const ns = ["users", `u${u}`];
        await store.batch(facts(u).map((text, i) => ({ namespace: ns, key: `m${i}`, value: { text, source: "extractor" }, index: ["text"] })));
        process.stdout.write(`\rseeded ${(u + 1) * PER_USER} memories`);
      }
    });
    const seedMs = performance.now() - t;
    console.log(` in ${(seedMs / 1000).toFixed(1)} s (${name}); event-loop delay p99 ${bulkImport.p99} ms, max ${bulkImport.max} ms`);

    const recall = async (turn: number) => {
      const ns = ["users", `u${turn % USERS}`];
      const t0 = performance.now();
      await waitForPendingWrites(store, ns);
      const items = await recallMemories(store, ns, { query: query(turn), limit: 5 });
      const ctx = formatMemoryContext(items);
      const ms = performance.now() - t0;
      if (!ctx || items.length !== 5) throw new Error(`turn ${turn}: recalled ${items.length} memories`);
      return ms;
    };

    const withEmbedding: number[] = [];
    for (let i = 0; i < WARMUP; i++) await recall(1000 + i);
    const recallLoop = await loopDelay(async () => {
      for (let i = WARMUP; i < WARMUP + TURNS; i++) withEmbedding.push(await recall(1000 + i));
    });

    // remember (duplicate check + put) against a put, both embedding a new text, alternately.
    const remember = createMemoryTools({ namespace: ["users", "{user_id}"], store }).find((x) => x.name === "remember")!;
    const putMs: number[] = [];
    const rememberMs: number[] = [];
    // What LangChain's tool call costs by itself (schema parse, callbacks, config): a tool with the
    // same schema that does nothing, invoked the same way.
    const noop = tool(async ({ content }) => content, { name: "noop", description: "does nothing", schema: z.object({ content: z.string().min(1), key: z.string().optional() }) });
    const noopMs: number[] = [];
    const fact = (kind: string, i: number) => `User ${kind} fact number ${i}: ${SUBJECTS[i % SUBJECTS.length]} ${DETAILS[(i * 3) % DETAILS.length]} ${VERBS[i % VERBS.length]}.`;
    for (let i = 0; i < WARMUP + 100; i++) {
      let t0 = performance.now();
      await store.put(["users", "writer"], `p${i}`, { text: fact("put", i) }, ["text"]);
      const p = performance.now() - t0;
      t0 = performance.now();
      await remember.invoke({ content: fact("remembered", i) }, { configurable: { user_id: "writer" } });
      const r = performance.now() - t0;
      t0 = performance.now();
      await noop.invoke({ content: fact("noop", i) }, { configurable: { user_id: "writer" } });
      const n = performance.now() - t0;
      if (i >= WARMUP) {
        putMs.push(p);
        rememberMs.push(r);
        noopMs.push(n);
      }
    }

    const searchOnly: number[] = [];
    const base = 5000;
    const vectors = await use.embedDocuments(Array.from({ length: WARMUP + TURNS }, (_, i) => query(base + i)));
    vectors.forEach((v, i) => embeddings.precomputed.set(query(base + i), v));
    for (let i = 0; i < WARMUP + TURNS; i++) {
      const ms = await recall(base + i);
      if (i >= WARMUP) searchOnly.push(ms);
    }

    // Whole node, with an instant scripted model (TEST DOUBLE, no LLM): preload vs none.
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const node = (mode: "preload" | "none") => callModel({ model, mode, namespace: ["users", "{user_id}"], store });
    const timeNode = async (mode: "preload" | "none", offset: number) => {
      const n = node(mode);
      const out: number[] = [];
      const before = model.calls.length;
      for (let i = 0; i < WARMUP + TURNS; i++) {
        const turn = offset + i;
        const t0 = performance.now();
        await n({ messages: [new HumanMessage(query(turn))] }, { configurable: { user_id: `u${turn % USERS}` } });
        if (i >= WARMUP) out.push(performance.now() - t0);
      }
      if (model.calls.length - before !== WARMUP + TURNS) throw new Error(`${mode}: the model was not called once per turn`);
      const last = model.calls[model.calls.length - 1];
      const hasContext = last.some((m) => m.getType() === "system");
      if (hasContext !== (mode === "preload")) throw new Error(`${mode}: memory context ${hasContext ? "present" : "missing"}`);
      return out;
    };
    const nodePreload = await timeNode("preload", 9000);
    const nodeNone = await timeNode("none", 9000);

    // Facts and episodes: 10k turns in one user's episode namespace, beside that user's 200 facts.
    const withEpisodes = await benchPreloadWithEpisodes(store, embeddings, {
      user: "u0",
      turns: EPISODE_TURNS,
      timedTurns: TURNS,
      warmup: WARMUP,
      facts: USERS * PER_USER,
      factsInNamespace: PER_USER,
    });
    const loadAtEnd = loadAverage();

    const result = {
      bench: "preload",
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, platform: process.platform },
      store: name,
      embedder: "USE-lite (UniversalSentenceEncoderEmbeddings, 512 dims, local)",
      memories: USERS * PER_USER,
      namespaceSize: PER_USER,
      limit: 5,
      turns: TURNS,
      modelLoadMs: Math.round(loadMs),
      seedSeconds: Math.round(seedMs / 100) / 10,
      recallWithEmbeddingMs: stats(withEmbedding),
      recallSearchOnlyMs: stats(searchOnly),
      callModelNodePreloadMs: stats(nodePreload),
      callModelNodeNoneMs: stats(nodeNone),
      preloadWithEpisodes: withEpisodes,
      loadAverage: { start: loadAtStart, end: loadAtEnd },
      putWithEmbeddingMs: stats(putMs),
      rememberToolMs: stats(rememberMs),
      noopToolCallMs: stats(noopMs),
      eventLoopDelayMs: {
        bulkImport10kWorker: { p99: bulkImport.p99, max: bulkImport.max, mean: bulkImport.mean },
        recallTurns: { p99: recallLoop.p99, max: recallLoop.max, mean: recallLoop.mean },
        bulkImport1kMainThread: { p99: mainImport.p99, max: mainImport.max, mean: mainImport.mean },
      },
    };
    const ratio = stats(rememberMs).p50 / stats(putMs).p50;
    const checks = [
      check("recall p95 (query embedding included) ≤ 25 ms", `${stats(withEmbedding).p95} ms`, stats(withEmbedding).p95 <= 25),
      check(
        `preload p95 with facts and episodes (query embedding included) ≤ 25 ms at ${USERS * PER_USER} facts + ${withEpisodes.episodeTurns} turns`,
        `${withEpisodes.withEmbeddingMs.p95} ms (query vector precomputed: ${withEpisodes.searchOnlyMs.p95} ms)`,
        withEpisodes.withEmbeddingMs.p95 <= 25,
      ),
      check(
        "remember ≤ 1.1× a put with embedding (p50)",
        `${ratio.toFixed(2)}× (${stats(rememberMs).p50} vs ${stats(putMs).p50} ms; of that, LangChain's tool call alone is ${stats(noopMs).p50} ms)`,
        ratio <= 1.1,
      ),
      check("event-loop max delay ≤ 50 ms during the 10k bulk import", `p99 ${bulkImport.p99} ms, max ${bulkImport.max} ms`, bulkImport.max <= 50),
      check("event-loop max delay ≤ 50 ms during recall", `p99 ${recallLoop.p99} ms, max ${recallLoop.max} ms`, recallLoop.max <= 50),
    ];
    Object.assign(result, { checks });
    await mkdir(new URL("./results/", import.meta.url), { recursive: true });
    await writeFile(new URL("./results/preload.json", import.meta.url), JSON.stringify(result, null, 2) + "\n");
    console.log(JSON.stringify(result, null, 2));
    const row = (name: string, l: { p50: number; p95: number; p99: number }) => `| ${name} | ${l.p50} | ${l.p95} | ${l.p99} |`;
    console.log(
      [
        `\npreload, ${USERS * PER_USER} facts (${PER_USER} in the user's namespace) + ${withEpisodes.episodeTurns} turns in the user's episodes, ${TURNS} turns`,
        "| measure | p50 (ms) | p95 (ms) | p99 (ms) |",
        "|---|---|---|---|",
        row("facts only, query embedding included", stats(withEmbedding)),
        row("facts only, query vector precomputed", stats(searchOnly)),
        row("facts + episodes, query embedding included", withEpisodes.withEmbeddingMs),
        row("facts + episodes, query vector precomputed", withEpisodes.searchOnlyMs),
        `load average (1, 5, 15 min): start ${loadAtStart.join(", ")}; end ${loadAtEnd.join(", ")}`,
      ].join("\n"),
    );
    for (const c of checks) console.log(`${c.met ? "MET   " : "MISSED"} ${c.target}: ${c.value}`);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
