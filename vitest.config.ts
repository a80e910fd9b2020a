import { defineConfig } from "vitest/config";

/**
 * One config, several suites. `npm test` runs the fast suite; the heavy ones
 * have their own scripts (and `.ci/run` runs them all):
 * - faults:   test/faults/   fault injection (SIGKILL, corruption, lock race, disk full)
 * - postgres: test/postgres/ PostgresMemoryStore on PGlite + pgvector, and
 *             multi-process tests on a real PostgreSQL server
 * - cli:      test/cli/      the langgraph-memory command, spawned on real directories
 * - browser:  test/browser/  the web inspector in headless Chromium
 * - scale:    test/scale/    1,000,000 items
 * - packaging: test/packaging/ npm pack + a fresh strict consumer project (a full build)
 * - security: test/security/ attacks on every surface: the route table, Host and framing, redaction, erasure, option fuzzing
 * - langgraph-server: test/langgraph-server/ the package inside LangGraph's own JS API server
 * - docs: test/docs/ every ```ts block of README.md and docs/ type-checked (and the runnable ones run)
 * - examples-e2e: test/examples-e2e/ the demo and the chatbot example, spawned as processes
 * - procedures-server: test/procedures-server/ the inspector's procedure routes over real HTTP
 */
const HEAVY = ["faults", "postgres", "browser", "cli", "scale", "packaging", "examples-e2e", "security", "langgraph-server", "docs", "procedures-server"] as const;
const suite = process.env.TEST_SUITE ?? "unit";

export default defineConfig({
  test: {
    include: suite === "unit" ? ["test/**/*.test.ts"] : [`test/${suite}/**/*.test.ts`],
    exclude: suite === "unit" ? ["**/node_modules/**", ...HEAVY.map((h) => `test/${h}/**`)] : ["**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The fast suite in two forks: vitest's default on a 2-core machine is one (cores − 1), and
    // npm test took 179 s there (165 s of it vitest) against 124-127 s with two, in three runs.
    // The heavy suites keep the default: they spawn processes and servers of their own.
    ...(suite === "unit" ? { maxWorkers: 2 } : {}),
    globalSetup: suite === "postgres" ? ["test/postgres/global-setup.ts"] : [],
  },
});
