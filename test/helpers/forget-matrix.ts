import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { allBytes } from "./all-bytes.js";
import { FakeEmbeddings } from "./fake-embeddings.js";
import { erasePerson, forgetEpisodes, forgetUser } from "../../src/index.js";
import { recordFeedback } from "../../src/procedures/feedback.js";
import { setProcedure } from "../../src/procedures/store.js";
import { createMemoryServer } from "../../src/server/index.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";

/**
 * Every forget path × every kind of a person's memory, each followed by a
 * scan of every byte the store keeps (every file of an HNSWStore directory;
 * every row of every table of a PostgreSQL schema). Each kind's text is a
 * unique word, so a scan that finds it names the cell that failed; the
 * controls (another person's fact, agent-wide instructions) must still be
 * found, so a scan that finds nothing is a scan that could have found
 * something.
 */

/** The person's data, one unique word per kind. */
export const ANN = {
  fact: "annfactxq1",
  factVersion: "annfactoldxq2",
  extractionCursor: "annreplycursorxq3",
  episode: "annepisodexq4",
  episodeCursor: "annepisodecursorxq5",
  procedureBot: "annbotrulexq6",
  procedureBotVersion: "annbotruleoldxq7",
  procedureHelper: "annhelperrulexq8",
  procedureHelperVersion: "annhelperruleoldxq9",
  feedbackBot: "annbotfeedbackxq10",
  feedbackHelper: "annhelperfeedbackxq11",
} as const;

/** What must survive: another person's fact, agent-wide instructions. */
export const CONTROLS = { bobFact: "bobfactkeepzz1", agentWide: "agentwiderulekeepzz2" } as const;

/** Seeds Ann's data of every kind and the controls, through the package's own writers where they exist. */
export async function seedPerson(store: BaseStore): Promise<void> {
  await store.put(["users", "ann"], "diet", { text: `older ${ANN.factVersion}` });
  // A kept version, as the extractor and a ProtectedStore keep them.
  await store.put(["memory_history", "users", "ann"], "diet@1", { key: "diet", version: 1, value: { text: `older ${ANN.factVersion}` }, op: "update" }, false);
  await store.put(["users", "ann"], "diet", { text: `User eats ${ANN.fact}` });
  await store.put(["memory_cursors", "users", "ann"], "thread-1", { processed: 4, lastReply: ANN.extractionCursor }, false);
  await store.put(["episodes", "ann"], "thread-1:0", { kind: "episode", threadId: "thread-1", turn: 0, speaker: "user", text: `I said ${ANN.episode}` });
  await store.put(["episode_cursors", "episodes", "ann"], "thread-1", { turn: 1, lastReply: ANN.episodeCursor }, false);
  const rules = { bot: [ANN.procedureBotVersion, ANN.procedureBot], helper: [ANN.procedureHelperVersion, ANN.procedureHelper] };
  for (const [agentId, [v1, v2]] of Object.entries(rules)) {
    await setProcedure(store, { agentId, userId: "ann" }, { instructions: `Rule ${v1}`, reason: "r" });
    await setProcedure(store, { agentId, userId: "ann" }, { instructions: `Rule ${v2}`, reason: "r" });
  }
  await recordFeedback(store, { agentId: "bot", userId: "ann", threadId: "thread-1", correction: `Said ${ANN.feedbackBot}` });
  await recordFeedback(store, { agentId: "helper", userId: "ann", threadId: "thread-1", correction: `Said ${ANN.feedbackHelper}` });
  await store.put(["users", "bob"], "bees", { text: `Bob ${CONTROLS.bobFact}` });
  await setProcedure(store, { agentId: "bot" }, { instructions: `Rule ${CONTROLS.agentWide}`, reason: "r" });
}

/** A store under test: opened on demand, closed after each path; `scan` reads every byte it keeps. */
export interface MatrixBackend {
  name: string;
  /** A fresh, empty place for one path's store; returns its handle. */
  fresh: () => Promise<MatrixPlace>;
  /** Whether the CLI can open it (a directory). */
  cli: boolean;
}

export interface MatrixPlace {
  open: () => Promise<BaseStore>;
  close: (store: BaseStore) => Promise<void>;
  /** Every byte the store keeps, as text (lower-cased comparisons are made too). */
  scan: () => Promise<string>;
  /** The directory, for the CLI. */
  dir?: string;
  cleanup: () => Promise<void>;
}

const KEY = "forget-matrix-key-0123456789";

/** A memory server with the inspector over `store` on 127.0.0.1, keyed; `post` sends JSON with the key. */
export async function serveWithInspector(store: BaseStore) {
  const app = createMemoryServer({ store, apiKey: KEY, logger: false, plugins: [async (a) => a.register(inspectorPlugin, { store })] });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const post = async (route: string, body: unknown) => {
    const res = await fetch(url + route, { method: "POST", headers: { "content-type": "application/json", "x-api-key": KEY }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { post, close: () => app.close() };
}

type Run = (store: BaseStore) => Promise<void>;

/** A path that is one POST to a memory server (with the inspector) over `store`, answered 200. */
const overHttp = (route: string, body: unknown): Run => async (store) => {
  const s = await serveWithInspector(store);
  try {
    const r = await s.post(route, body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  } finally {
    await s.close();
  }
};

/** Every way to forget a person, each expected to erase every kind. */
export const PERSON_PATHS: Record<string, Run> = {
  "erasePerson({ userId })": async (store) => {
    const r = await erasePerson(store, { userId: "ann" });
    expect(r.kinds?.procedures.items).toBe(2);
    expect(r.kinds?.procedures.bookkeeping).toBe(2);
  },
  "forgetUser(store, template, values)": async (store) => {
    await forgetUser(store, ["users", "{user_id}"], { user_id: "ann" });
  },
  "POST /v1/store/memories/forget { all: true }": overHttp("/v1/store/memories/forget", { user_id: "ann", all: true }),
  "inspector Forget user (users.ann)": overHttp("/inspector/api/forget", { namespace: ["users", "ann"], confirm: "ann" }),
  "inspector Forget user (episodes.ann)": overHttp("/inspector/api/forget", { namespace: ["episodes", "ann"], confirm: "ann" }),
};

/** CLI paths (a store directory only; the store is closed while the CLI runs). */
export const CLI_PATHS: Record<string, string[]> = {
  "langgraph-memory forget users.ann --yes": ["forget", "users.ann", "--yes"],
  "langgraph-memory forget --user ann --yes": ["forget", "--user", "ann", "--yes"],
};

/** Which of `words` appear in `bytes` (as written or lower-cased, as keyword indexes keep them). */
export function found(bytes: string, words: readonly string[]): string[] {
  const lower = bytes.toLowerCase();
  return words.filter((w) => bytes.includes(w) || lower.includes(w.toLowerCase()));
}

/**
 * Registers the matrix over one backend: one test per path, one soft
 * assertion per kind. With `cli`, only the CLI paths (spawned processes, in
 * the cli suite); without, every in-process and HTTP path.
 */
export function forgetMatrix(backend: MatrixBackend, cli?: (args: string[]) => Promise<{ code: number | null; stderr: string }>): void {
  const run = async (path: string, act: (place: MatrixPlace) => Promise<void>, expectErased: readonly (keyof typeof ANN)[]) => {
    const place = await backend.fresh();
    try {
      const store = await place.open();
      await seedPerson(store);
      await place.close(store);
      const before = await place.scan();
      expect(found(before, Object.values(ANN)), "the seed wrote every kind").toEqual(Object.values(ANN));
      await act(place);
      const after = await place.scan();
      for (const kind of Object.keys(ANN) as (keyof typeof ANN)[]) {
        const left = found(after, [ANN[kind]]).length > 0;
        expect.soft(left, `${backend.name} · ${path} · ${kind} ${expectErased.includes(kind) ? "left on disk" : "was erased but should be kept"}`).toBe(!expectErased.includes(kind));
      }
      expect(found(after, Object.values(CONTROLS)), `${backend.name} · ${path}: controls kept`).toEqual(Object.values(CONTROLS));
    } finally {
      await place.cleanup();
    }
  };
  const every = Object.keys(ANN) as (keyof typeof ANN)[];
  if (backend.cli && cli) {
    for (const [path, args] of Object.entries(CLI_PATHS)) {
      it(`${path} erases every kind`, async () => {
        await run(path, async (place) => {
          const r = await cli(["--path", place.dir!, ...args]);
          expect(r.code, r.stderr).toBe(0);
        }, every);
      });
    }
    return;
  }
  for (const [path, act] of Object.entries(PERSON_PATHS)) {
    it(`${path} erases every kind`, async () => {
      await run(path, async (place) => {
        const store = await place.open();
        try {
          await act(store);
        } finally {
          await place.close(store);
        }
      }, every);
    });
  }
  it("forgetEpisodes(store, namespace) erases the episodes kind (turns and cursors) and keeps the others", async () => {
    await run("forgetEpisodes", async (place) => {
      const store = await place.open();
      try {
        expect(await forgetEpisodes(store, ["episodes", "ann"])).toBe(1);
      } finally {
        await place.close(store);
      }
    }, ["episode", "episodeCursor"]);
  });
}

/** HNSWStore directories for the matrix: the scan reads every byte of every file. */
export function hnswMatrixBackend(): MatrixBackend {
  return {
    name: "HNSWStore",
    cli: true,
    fresh: async () => {
      const dir = await mkdtemp(join(tmpdir(), "forget-matrix-"));
      return {
        dir,
        open: async () => new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] } }),
        close: (s: BaseStore) => (s as HNSWStore).close(),
        scan: async () => allBytes(dir),
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    },
  };
}
