/**
 * memoryStoreFromEnv: which store the environment asks for, the named error
 * when it asks for none or several, and that each store opens lazily and
 * works: HNSWStore on a real temp directory and the PostgreSQL store's lazy
 * opening (RemoteStore against a real memory server is in
 * test/langgraph-server/, a real database in test/postgres/). Embeddings: FakeEmbeddings, a
 * deterministic TEST DOUBLE.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  HNSWStore,
  LazyStore,
  MemoryStoreConfigError,
  memoryStoreFromEnv,
  memoryStoreKindFromEnv,
  StoreClosedError,
} from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";

const index = { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }), fields: ["text"] };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("memoryStoreKindFromEnv", () => {
  it("names the one store that is configured", () => {
    expect(memoryStoreKindFromEnv({ LANGGRAPH_MEMORY_URL: "http://127.0.0.1:8787" })).toBe("remote");
    expect(memoryStoreKindFromEnv({ DATABASE_URL: "postgres://x@127.0.0.1/db" })).toBe("postgres");
    expect(memoryStoreKindFromEnv({ LANGGRAPH_MEMORY_PATH: "./.memory", LANGGRAPH_MEMORY_URL: " ", DATABASE_URL: "" })).toBe("hnsw");
  });

  it("refuses none, naming every variable it reads, and refuses several, naming the ones set", () => {
    expect(() => memoryStoreKindFromEnv({})).toThrow(MemoryStoreConfigError);
    expect(() => memoryStoreKindFromEnv({ LANGGRAPH_MEMORY_API_KEY: "k" })).toThrow(/no memory store configured; set exactly one of LANGGRAPH_MEMORY_URL .*DATABASE_URL .*LANGGRAPH_MEMORY_PATH/);
    expect(() => memoryStoreKindFromEnv({ DATABASE_URL: "postgres://x@h/db", LANGGRAPH_MEMORY_PATH: "/tmp/m" })).toThrow(
      /DATABASE_URL and LANGGRAPH_MEMORY_PATH are all set/,
    );
    expect(() => memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_URL: "http://h", DATABASE_URL: "postgres://h/db", LANGGRAPH_MEMORY_PATH: "/m" } })).toThrow(MemoryStoreConfigError);
  });
});

describe("memoryStoreFromEnv", () => {
  it("LANGGRAPH_MEMORY_PATH: an HNSWStore on that directory that opens at its first operation and persists", async () => {
    const { dir, cleanup } = tempDir("store-from-env-");
    cleanups.push(cleanup);
    const where = path.join(dir, "memory");
    const store = memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_PATH: where }, index });
    expect(store).toBeInstanceOf(HNSWStore);
    expect(fs.existsSync(where)).toBe(false); // nothing opened yet
    await store.put(["users", "1"], "a", { text: "User is vegetarian." });
    expect(fs.existsSync(where)).toBe(true);
    await (store as HNSWStore).close();

    const again = memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_PATH: where }, index });
    cleanups.push(() => (again as HNSWStore).close());
    expect((await again.search(["users", "1"], { query: "vegetarian" })).map((i) => i.value.text)).toEqual(["User is vegetarian."]);
  });

  it("DATABASE_URL: a lazy PostgresMemoryStore; nothing connects until the first operation, a failed open is retried, close ends it", async () => {
    // Port 1 on loopback: nothing listens, so every connection is refused at once.
    const store = memoryStoreFromEnv({ env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }, index, postgres: { maxRetries: 0, connectionRetryMs: 0 } }); // no 10 s of reconnecting per call
    expect(store).toBeInstanceOf(LazyStore);
    expect((store as LazyStore).label).toBe("PostgresMemoryStore");
    await expect(store.get(["users", "1"], "a")).rejects.toThrow(/ECONNREFUSED|connect/);
    await expect(store.search(["users", "1"], { query: "x" })).rejects.toThrow(/ECONNREFUSED|connect/); // tried again, not a cached failure
    await (store as LazyStore).close();
    await expect(store.get(["users", "1"], "a")).rejects.toBeInstanceOf(StoreClosedError);
  });

  it("a URL that is not one fails at the call, before anything runs, without echoing a password", () => {
    expect(() => memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_URL: "not a url" } })).toThrow(MemoryStoreConfigError);
    expect(() => memoryStoreFromEnv({ env: { LANGGRAPH_MEMORY_URL: "file:///etc/passwd" } })).toThrow(/LANGGRAPH_MEMORY_URL must be a http: or https: URL, got "file:"/);
    expect(() => memoryStoreFromEnv({ env: { DATABASE_URL: "mysql://u:secret@db/x" } })).toThrow(/DATABASE_URL must be a postgres: or postgresql: URL/);
    let message = "";
    try {
      memoryStoreFromEnv({ env: { DATABASE_URL: "postgres://u:secret@db:notaport/x" } });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/not a valid URL/);
    expect(message).not.toContain("secret");
  });
});

/** Files the module loads at import time (static, non-type imports), followed from `entry`. */
function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = fs.readFileSync(file, "utf8");
    // `import type` / `export type` are erased; `import(` (dynamic) is not matched.
    const re = /^(?:import|export)(?!\s+type\b)[^;]*?from\s+"(\.[^"]+)"|^import\s+"(\.[^"]+)"/gm;
    for (const m of source.matchAll(re)) visit(path.resolve(path.dirname(file), (m[1] ?? m[2]).replace(/\.js$/, ".ts")));
  };
  visit(entry);
  return seen;
}

it("the main entry loads nothing of the PostgreSQL store at import time (memoryStoreFromEnv imports it dynamically)", () => {
  const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src");
  const loaded = [...staticImports(path.join(src, "index.ts"))].map((f) => path.relative(src, f));
  expect(loaded).toContain(path.join("scope", "memory-store-from-env.ts"));
  expect(loaded).toContain(path.join("store", "hnsw", "hnsw-store.ts")); // the walker follows the graph
  expect(loaded.filter((f) => f.startsWith(path.join("store", "postgres")))).toEqual([]);
  expect(fs.readFileSync(path.join(src, "scope", "memory-store-from-env.ts"), "utf8")).toContain('await import("../store/postgres/index.js")');
});
