import { describe, expect, it } from "vitest";
import { InvalidValueError } from "../../src/errors.js";
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { describeStoreContract, type ContractFactory, type ContractOptions } from "../conformance/store-contract.js";
import { makeRemote } from "../server/remote-factory.js";
import { API_KEY } from "../server/keys.js";
import { describeWithVectors, freshSchema, poolForFile } from "./real-server.js";

/**
 * The memory server over PostgresMemoryStore on the real PostgreSQL server:
 * the store contract through RemoteStore → HTTP on 127.0.0.1 → server → PostgreSQL,
 * as a trusted service and as an end user (confined under ["users", id]).
 */
const DIMS = 32;
const server = poolForFile(4);

const backend = async (index: { dims: number; embeddings: unknown; fields: string[] } | undefined) => {
  const schema = freshSchema();
  const store = new PostgresMemoryStore({ pool: server.pool, schema, index: index as ConstructorParameters<typeof PostgresMemoryStore>[0]["index"] });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await server.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
};

const factory = (as: "service" | { user: string }, name: string): ContractFactory => ({
  name,
  capabilities: { extendedFilters: true, extras: false, batchedEmbedding: true, namespaceDetail: true },
  make: async (options: ContractOptions = {}) => {
    const r = await makeRemote({ dims: DIMS, fields: options.fields, index: options.index, as, backend });
    return { store: r.store, embeddings: r.embeddings, cleanup: r.cleanup };
  },
});

describeWithVectors("memory server over PostgresMemoryStore (real server)", () => {
  describeStoreContract(factory("service", "RemoteStore (trusted service) → memory server → PostgresMemoryStore"));
  describeStoreContract(factory({ user: "u-1" }, "RemoteStore (end user u-1) → memory server → PostgresMemoryStore"));

  describe("input PostgreSQL cannot keep", () => {
    it("is refused with the named error, as over HNSWStore, and nothing is written", async () => {
      const r = await makeRemote({ dims: DIMS, backend });
      try {
        // Raw HTTP (RemoteStore would refuse them before sending): the server answers 400 with the named error, never a 500.
        for (const body of ['{"text":"a\\u0000b"}', '{"text":"lone \\ud800"}', '{"k\\u0000":"x"}']) {
          const res = await fetch(`${r.url}/store/items`, {
            method: "PUT",
            headers: { "content-type": "application/json", "x-api-key": API_KEY },
            body: `{"namespace":["a"],"key":"k","value":${body}}`,
          });
          const answer = (await res.json()) as { error: string; message: string };
          expect(res.status, body).toBe(400);
          expect(answer.error).toBe("InvalidValueError");
          expect(answer.message).toMatch(/NUL|surrogate/);
        }
        await expect(r.store.put(["a"], "k", { text: "lone \ud800" })).rejects.toThrow(/surrogate/);
        await expect((r.server as PostgresMemoryStore).put(["a"], "k", { text: "a\u0000b" })).rejects.toBeInstanceOf(InvalidValueError);
        expect(await r.store.search(["a"])).toEqual([]);
      } finally {
        await r.cleanup();
      }
    });
  });
});
