/**
 * Option fuzzing of every public constructor and factory: each numeric,
 * boolean, string and function option gets `null`, `NaN`, negative numbers,
 * `Infinity`, fractions and wrong types. Each must be refused with a NAMED
 * error (a MemoryError subclass whose message names the option), or be a
 * value with a documented meaning (listed per option below, e.g.
 * `ttl.defaultTtl: null` = never expires) — never accepted to be computed
 * with. No I/O happens: the checks run in constructors and at the start of
 * the async calls. The chat model is a scripted TEST DOUBLE; the embedder
 * is FakeEmbeddings (a TEST DOUBLE).
 */
import { StateGraph, MessagesAnnotation } from "@langchain/langgraph";
import { afterAll, describe, expect, it } from "vitest";
import {
  AuditLog,
  CachedEmbeddings,
  callModel,
  cleanup,
  createMemoryTools,
  createRedactor,
  createSearchConversationsTool,
  EncryptedSerializer,
  HNSWStore,
  KeywordIndex,
  MemoryError,
  MemoryExtractor,
  MemoryStoreConfigError,
  memoryStoreFromEnv,
  ProcedureOptimizer,
  UnknownOptionError,
  migrateStore,
  ProtectedStore,
  recallMemoryContext,
  recordEpisodes,
  RemoteStore,
  scheduleRetention,
  searchEpisodes,
  UniversalSentenceEncoderEmbeddings,
  withMemory,
  writeMemory,
} from "../../src/index.js";
import { memoryMiddleware } from "../../src/agent/index.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { createMemoryServer } from "../../src/server/index.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { applyReview, dismissReview } from "../../src/procedures/review.js";
import Fastify from "fastify";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";

type Kind = "int+" | "int0" | "num+" | "num0" | "frac" | "cos" | "bool" | "str" | "fn" | "obj";
const BAD: Record<Kind, unknown[]> = {
  "int+": [null, NaN, -1, 0, 1.5, Infinity, -Infinity, "5", {}, true],
  int0: [null, NaN, -1, 1.5, Infinity, "5", {}, true],
  "num+": [null, NaN, -1, 0, Infinity, -Infinity, "5", {}, true],
  num0: [null, NaN, -1, Infinity, -Infinity, "5", {}, true],
  frac: [null, NaN, -0.1, 1.5, Infinity, "0.5", {}],
  cos: [null, NaN, -1.5, 1.5, Infinity, "0.5", {}],
  bool: [null, "yes", 1, {}],
  str: [null, 5, {}, true],
  fn: [null, "f", 5, {}],
  obj: [null, 5, "x", []],
};

interface Target {
  name: string;
  /** Builds (or starts) the thing with `options`; may return a promise. */
  make: (options: Record<string, unknown>) => unknown;
  base: () => Record<string, unknown>;
  /** Option path → kind, and the values of it that have a documented meaning. */
  options: Record<string, Kind | [Kind, unknown[]]>;
  /** Disposes what `make` returned when it was accepted. */
  dispose?: (made: unknown) => Promise<void> | void;
}

const model = () => new ScriptedChatModel({ turns: [], fallback: "ok" });
const embeddings = () => new FakeEmbeddings({ dims: 8 });
const store = () => new HNSWStore();
const index = () => ({ dims: 8, embeddings: embeddings() });

/** A store holding one proposal kept for review (feedback "f" of agent "a"). */
async function withReview(): Promise<HNSWStore> {
  const s = store();
  const at = new Date().toISOString();
  await s.put(["procedure_feedback", "a"], "f", { id: "f", agentId: "a", threadId: "t", messages: [], createdAt: at, status: "review", review: { reason: "diff_too_large", message: "", proposed: "Be brief.", name: "instructions", at, baseVersion: 0 } });
  return s;
}

const TARGETS: Target[] = [
  {
    name: "HNSWStore",
    make: (o) => new HNSWStore(o),
    base: () => ({ index: index() }),
    options: {
      path: "str",
      "ttl.defaultTtl": ["num+", [null]],
      "ttl.refreshOnRead": "bool",
      "ttl.sweepIntervalMinutes": "num0",
      "hnsw.M": "int+",
      "hnsw.efConstruction": "int+",
      "hnsw.efSearch": "int+",
      "hnsw.initialCapacity": "int+",
      "hnsw.exactScanThreshold": "int0",
      "index.dims": "int+",
      compactAfterBytes: "num0",
      compactLogRatio: "num0",
      embeddingCache: "bool",
      withoutEmbedder: "bool",
      embedderIdentity: "str",
      clock: "fn",
      durability: "str",
      retrieval: "str",
    },
    dispose: (s) => (s as HNSWStore).close(),
  },
  {
    name: "PostgresMemoryStore",
    make: (o) => new PostgresMemoryStore(o as never),
    base: () => ({ connectionString: "postgres://u@127.0.0.1:1/db" }),
    options: {
      "ttl.defaultTtl": ["num+", [null]],
      "ttl.sweepIntervalMinutes": "num0",
      "ttl.refreshOnRead": "bool",
      "hnsw.m": "int+",
      "hnsw.efSearch": "int+",
      "hnsw.exactScanThreshold": "int0",
      maxRetries: "int0",
      schema: "str",
      embedderIdentity: "str",
      clock: "fn",
    },
  },
  {
    name: "RemoteStore",
    make: (o) => new RemoteStore(o as never),
    base: () => ({ url: "http://127.0.0.1:1" }),
    options: { url: "str", apiKey: "str", timeoutMs: "num+", headers: "obj" },
  },
  {
    name: "createMemoryServer",
    make: (o) => createMemoryServer(o as never),
    base: () => ({ store: store(), allowUnauthenticated: true, logger: false }),
    options: { bodyLimit: "int+", maxLimit: "int+", maxBatchOperations: "int+", requestTimeout: "int0", usersLabel: "str", allowUnauthenticated: "bool", closeStore: "bool", authenticate: "fn" },
    dispose: (app) => (app as { close(): Promise<void> }).close(),
  },
  {
    name: "ProtectedStore",
    make: (o) => new ProtectedStore(store(), o),
    base: () => ({}),
    options: { historyTtl: "num+", history: "bool", redactor: "fn" },
  },
  {
    name: "createRedactor",
    make: (o) => createRedactor(o as never),
    base: () => ({}),
    options: { detectors: ["obj", [[]]], patterns: "obj" }, // detectors: [] = custom patterns only (documented)
  },
  {
    name: "AuditLog",
    make: (o) => new AuditLog(o as never),
    base: () => ({ path: "/tmp/never-opened-audit" }),
    options: { path: "str", subjectDepth: "int+", sync: "bool" },
  },
  {
    name: "cleanup",
    make: (o) => cleanup(store(), o as never),
    base: () => ({ namespace: ["u"], maxAge: 60 }),
    options: { maxAge: "num0", keepLast: "int0", now: "fn" },
  },
  {
    name: "scheduleRetention",
    make: (o) => scheduleRetention(store(), [{ namespace: ["u"], keepLast: 5 }], o),
    base: () => ({}),
    options: { everyMinutes: "num+", onError: "fn", onRun: "fn" },
    dispose: (stop) => (stop as () => void)(),
  },
  {
    name: "MemoryExtractor",
    make: (o) => new MemoryExtractor(o as never),
    base: () => ({ model: model() }),
    options: {
      instructions: "str",
      enableUpdates: "bool",
      enableDeletes: "bool",
      structuredOutput: "bool",
      neighbours: "int0",
      duplicateThreshold: "frac",
      profileKey: "str",
      maxAttempts: "int+",
      retryDelaySeconds: "num0",
      maxChangesPerRun: ["int+", [0]], // 0: never changes an existing memory (documented)
      maxFactsPerRun: "int+",
      maxReplyChars: "int+",
      keepHistory: "bool",
    },
  },
  {
    name: "callModel",
    make: (o) => callModel(o as never),
    base: () => ({ model: model(), namespace: ["users", "{user_id}"], store: store() }),
    options: { limit: ["int+", [0]], scoreThreshold: "cos", fillWithRecent: "bool", recentScanLimit: "int+", maxTokens: "int+", systemPrompt: "str", queryBuilder: "fn", mode: "str" },
  },
  {
    name: "callModel procedures",
    make: (o) => callModel(o as never),
    base: () => ({ model: model(), namespace: ["users", "{user_id}"], store: store(), procedures: { agentId: "bot" } }),
    options: { "procedures.name": "str", "procedures.store": "obj", "procedures.userKey": ["str", [false]], "procedures.maxTokens": "int+" },
  },
  {
    name: "ProcedureOptimizer",
    make: (o) => new ProcedureOptimizer(o as never),
    base: () => ({ model: model() }),
    options: {
      retryDelaySeconds: "num0",
      limits: "obj",
      "limits.maxChars": ["int+", [Infinity]],
      "limits.maxChangedLines": ["int+", [Infinity]],
      rejectUnsafe: "bool",
      prompts: "obj",
      "prompts.metaprompt": "str",
      logger: "obj",
      maxAttempts: "int+",
      maxCallsPerRun: "int+",
      maxCharsPerRun: "int+",
      maxFeedbackPerRun: "int+",
      maxReplyChars: "int+",
    },
  },
  {
    name: "memoryStoreFromEnv",
    make: (o) => memoryStoreFromEnv(o as never),
    base: () => ({ env: { LANGGRAPH_MEMORY_PATH: "/tmp/never-opened-memory" }, index: index() }),
    options: { env: "obj", hnsw: "obj", postgres: "obj", remote: "obj", "hnsw.compactLogRatio": "num0", "hnsw.durability": "str" },
  },
  {
    name: "withMemory",
    make: (o) => withMemory(new StateGraph(MessagesAnnotation) as never, o as never),
    base: () => ({ model: model(), namespace: ["users", "{user_id}"], store: store() }),
    options: { limit: ["int+", [0]], scoreThreshold: "cos", maxTokens: "int+", handleToolErrors: "bool", mode: "str" },
  },
  {
    name: "memoryMiddleware",
    make: (o) => memoryMiddleware(o as never),
    base: () => ({ namespace: ["users", "{user_id}"], store: store() }),
    options: { limit: ["int+", [0]], scoreThreshold: "cos", maxTokens: "int+", handleToolErrors: "bool", name: "str", mode: "str" },
  },
  {
    name: "writeMemory",
    make: (o) => writeMemory(o as never),
    base: () => ({ namespace: ["users", "{user_id}"], store: store(), extractor: new MemoryExtractor({ model: model() }) }),
    options: { debounceSeconds: "num0", ttl: "num+" },
  },
  {
    name: "createMemoryTools",
    make: (o) => createMemoryTools(o as never),
    base: () => ({ namespace: ["users", "{user_id}"], store: store() }),
    options: { duplicateThreshold: ["frac", [1.5]], maxSearchLimit: "int+" }, // above 1: duplicate detection off (documented)
  },
  {
    name: "recallMemoryContext",
    make: (o) => recallMemoryContext(o as never),
    base: () => ({ store: store(), namespace: ["users", "{user_id}"], config: { configurable: { user_id: "a" } }, query: "tea" }),
    options: { limit: ["int+", [0]], scoreThreshold: "cos", maxTokens: "int+", recentScanLimit: "int+", fillWithRecent: "bool" },
  },
  {
    name: "recordEpisodes",
    make: (o) => recordEpisodes(o as never),
    base: () => ({ store: store(), namespace: ["episodes", "a"], threadId: "t", messages: [] }),
    options: { ttl: "num+", threadId: "str" },
  },
  {
    name: "searchEpisodes",
    make: (o) => searchEpisodes(store(), ["episodes", "a"], o as never),
    base: () => ({ query: "tea" }),
    options: { limit: "int+", pool: "int+", neighbours: "bool", rerank: "bool", query: "str" },
  },
  {
    name: "createSearchConversationsTool",
    make: (o) => createSearchConversationsTool(o as never),
    base: () => ({ namespace: ["episodes", "{user_id}"], store: store() }),
    options: { maxLimit: "int+" },
  },
  {
    name: "inspectorPlugin",
    make: async (o) => {
      const app = Fastify({ logger: false });
      try {
        await app.register(inspectorPlugin, o as never);
        await app.ready();
      } finally {
        await app.close();
      }
    },
    base: () => ({ store: store() }),
    options: { title: "str", usersLabel: "str", episodesLabel: "str" },
  },
  {
    name: "applyReview",
    make: async (o) => applyReview(await withReview(), { agentId: "a", feedbackId: "f" }, o as never),
    base: () => ({}),
    options: { force: "bool", reason: "str", "limits.maxChars": ["int+", [Infinity]] },
  },
  {
    name: "dismissReview",
    make: async (o) => dismissReview(await withReview(), { agentId: "a", feedbackId: "f" }, o as never),
    base: () => ({}),
    options: { reason: "str" },
  },
  {
    name: "CachedEmbeddings",
    make: (o) => new CachedEmbeddings(o as never),
    base: () => ({ embeddings: embeddings() }),
    options: { maxEntries: "int+", symmetric: "bool", file: "str" },
  },
  {
    name: "KeywordIndex",
    make: (o) => new KeywordIndex(o),
    base: () => ({}),
    options: { k1: "num0", b: "frac", stemming: "bool" },
  },
  {
    name: "EncryptedSerializer",
    make: (o) => EncryptedSerializer.create(o as never),
    base: () => ({ key: Buffer.alloc(32, 7) }),
    options: { readPlaintext: "bool" },
  },
  {
    name: "UniversalSentenceEncoderEmbeddings",
    make: (o) => new UniversalSentenceEncoderEmbeddings(o),
    base: () => ({}),
    options: { batchSize: "int+", chunkChars: "int+", maxChunks: "int+" },
  },
  {
    name: "migrateStore",
    make: (o) => migrateStore(store(), store(), o),
    base: () => ({}),
    options: { batchSize: "int+", verify: "bool", onProgress: "fn" },
  },
];

function withOption(base: Record<string, unknown>, dotted: string, value: unknown): Record<string, unknown> {
  // Plain objects are copied level by level on the way down; class instances (stores, models) are shared.
  const out = { ...base };
  const parts = dotted.split(".");
  let at = out;
  for (const p of parts.slice(0, -1)) {
    at[p] = at[p] && typeof at[p] === "object" ? { ...(at[p] as object) } : {};
    at = at[p] as Record<string, unknown>;
  }
  at[parts[parts.length - 1]!] = value;
  return out;
}

const show = (v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? String(v) : JSON.stringify(v));
const tally = { tried: 0, held: 0, failures: [] as string[] };
afterAll(() => console.log(`options fuzz: ${tally.held}/${tally.tried} held${tally.failures.length ? `; accepted or unnamed: ${tally.failures.join(" | ")}` : ""}`));

describe("option fuzzing: every public constructor and factory refuses unusable values by name", () => {
  for (const t of TARGETS) {
    it(t.name, async () => {
      // The base options are accepted as they are (so a refusal below is about the fuzzed option).
      const ok = await Promise.resolve(t.make(t.base()));
      await t.dispose?.(ok);
      const failures: string[] = [];
      for (const [option, spec] of Object.entries(t.options)) {
        const [kind, documented] = Array.isArray(spec) ? spec : [spec, []];
        for (const bad of BAD[kind]) {
          if (documented.some((d) => Object.is(d, bad) || (typeof d === "object" && JSON.stringify(d) === JSON.stringify(bad)))) continue;
          tally.tried++;
          let outcome: string;
          try {
            const made = await Promise.resolve(t.make(withOption(t.base(), option, bad)));
            await t.dispose?.(made);
            outcome = "accepted";
          } catch (err) {
            const named = err instanceof MemoryError || ((err as Error)?.name ?? "Error").endsWith("Error") && !["Error", "TypeError", "RangeError", "SyntaxError"].includes((err as Error).name);
            const leaf = option.split(".").pop()!;
            outcome = named && String((err as Error).message).includes(leaf) ? "held" : `unnamed ${(err as Error)?.name}: ${String((err as Error)?.message).slice(0, 80)}`;
          }
          if (outcome === "held") tally.held++;
          else failures.push(`${t.name} ${option}=${show(bad)} ${outcome}`);
        }
        // The documented values are accepted (e.g. ttl.defaultTtl null = never expires).
        for (const good of documented) {
          tally.tried++;
          const made = await Promise.resolve(t.make(withOption(t.base(), option, good)));
          await t.dispose?.(made);
          tally.held++;
        }
      }
      tally.failures.push(...failures);
      expect(failures).toEqual([]);
    });
  }
});

/** A misspelling of `key` that a person makes: another case, or a letter dropped. */
function typo(key: string): string {
  return key.toLowerCase() !== key ? key.toLowerCase() : key.length > 4 ? key.slice(0, -2) + key.slice(-1) : `${key}s`;
}

describe("unknown keys: every public options object refuses them by name and suggests the near miss", () => {
  const seen = { tried: 0, held: 0 };
  afterAll(() => console.log(`unknown option keys: ${seen.held}/${seen.tried} held`));
  for (const t of TARGETS) {
    it(t.name, async () => {
      const failures: string[] = [];
      const paths = new Set<string>();
      for (const option of Object.keys(t.options)) {
        const parts = option.split(".");
        paths.add(option);
        if (parts.length > 1) paths.add(`${parts.slice(0, -1).join(".")}.noSuchOption`);
      }
      paths.add("noSuchOption");
      for (const path of paths) {
        const parts = path.split(".");
        const leaf = parts.pop()!;
        const prefix = parts.length ? `${parts.join(".")}.` : "";
        const wrong = leaf === "noSuchOption" ? leaf : typo(leaf);
        if (wrong === leaf) continue;
        const given = `${prefix}${wrong}`;
        seen.tried++;
        let outcome: string;
        try {
          const made = await Promise.resolve(t.make(withOption(t.base(), given, 1)));
          await t.dispose?.(made);
          outcome = "accepted";
        } catch (err) {
          const e = err as UnknownOptionError;
          const suggestion = leaf === "noSuchOption" ? undefined : path;
          outcome =
            e instanceof UnknownOptionError && e.option === given && e.message.includes(given) && (suggestion === undefined || e.suggestion === suggestion)
              ? "held"
              : `${(err as Error)?.name}: ${String((err as Error)?.message).slice(0, 100)}`;
        }
        if (outcome === "held") seen.held++;
        else failures.push(`${t.name} ${given} ${outcome}`);
      }
      expect(failures).toEqual([]);
    });
  }

  it("the typo from the report: PostgresMemoryStore hnsw.indexworkers suggests hnsw.indexWorkers", () => {
    const err = (() => {
      try {
        new PostgresMemoryStore({ connectionString: "postgres://u@127.0.0.1:1/db", hnsw: { indexworkers: 2 } } as never);
      } catch (e) {
        return e as UnknownOptionError;
      }
    })();
    seen.tried++;
    expect(err).toBeInstanceOf(UnknownOptionError);
    expect(err?.message).toMatch(/unknown option hnsw\.indexworkers \(did you mean hnsw\.indexWorkers\?\)/);
    seen.held++;
  });

  it("a NUL in LANGGRAPH_MEMORY_PATH (or an HNSWStore path) is a named error, not a raw TypeError", () => {
    seen.tried += 2;
    expect(() => memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_PATH: "/tmp/a\0b" } })).toThrow(MemoryStoreConfigError);
    expect(() => new HNSWStore({ path: "/tmp/a\0b" })).toThrow(/path must be a path without NUL/);
    seen.held += 2;
  });
});
