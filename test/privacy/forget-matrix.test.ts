/**
 * The forget matrix on HNSWStore: every forget path (erasePerson, forgetUser,
 * /v1 forget all, the inspector's Forget from a facts and from an episodes
 * namespace, forgetEpisodes) × every kind of a person's memory (facts, their
 * kept versions, extraction cursors, episodes, episode cursors, learned
 * instructions of two agents, their versions, feedback), each followed by a
 * byte scan of every file the store wrote. Real HNSWStore on disk, real HTTP
 * on loopback; FakeEmbeddings is a TEST DOUBLE (bag of words). The same
 * matrix runs on PostgreSQL in test/postgres/forget-matrix.test.ts, and its
 * CLI paths (spawned processes) in test/cli/forget-matrix.test.ts.
 */
import { describe, vi } from "vitest";
import { forgetMatrix, hnswMatrixBackend } from "../helpers/forget-matrix.js";

vi.setConfig({ testTimeout: 120_000 });

describe("forget matrix: every forget path × every kind, HNSWStore files", () => {
  forgetMatrix(hnswMatrixBackend());
});
