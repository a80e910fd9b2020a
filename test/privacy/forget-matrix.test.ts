/**
 * The forget matrix on HNSWStore: every forget path (erasePerson, forgetUser,
 * /v1 forget all, the inspector's Forget from a facts and from an episodes
 * namespace, the CLI by namespace and by --user, forgetEpisodes) × every kind
 * of a person's memory (facts, their kept versions, extraction cursors,
 * episodes, episode cursors, learned instructions of two agents, their
 * versions, feedback), each followed by a byte scan of every file the store
 * wrote. Real HNSWStore on disk, real HTTP on loopback, the real CLI process;
 * FakeEmbeddings is a TEST DOUBLE (bag of words). The same matrix runs on
 * PostgreSQL in test/postgres/forget-matrix.test.ts.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, vi } from "vitest";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { allBytes } from "../helpers/all-bytes.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { forgetMatrix } from "../helpers/forget-matrix.js";
import { runCli } from "../cli/run-cli.js";

vi.setConfig({ testTimeout: 120_000 });

describe("forget matrix: every forget path × every kind, HNSWStore files", () => {
  forgetMatrix(
    {
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
    },
    (args) => runCli(args),
  );
});
