/**
 * The forget matrix's CLI paths (test/helpers/forget-matrix.ts):
 * `langgraph-memory forget users.ann --yes` and `forget --user ann --yes`,
 * the real CLI process on a real HNSWStore directory, × every kind of a
 * person's memory, each followed by a byte scan of every file.
 * FakeEmbeddings is a TEST DOUBLE (bag of words).
 */
import { describe, vi } from "vitest";
import { forgetMatrix, hnswMatrixBackend } from "../helpers/forget-matrix.js";
import { runCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 120_000 });

describe("forget matrix: the CLI's forget × every kind, HNSWStore files", () => {
  forgetMatrix(hnswMatrixBackend(), (args) => runCli(args));
});
