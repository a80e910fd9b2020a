/**
 * "What does my running bot know?": `search` on a directory an app holds
 * open (here `langgraph-memory serve`, a real process) ranks by meaning with
 * the vectors the directory holds (the query embedded by the real local
 * USE-lite model), says so on stderr; `serve --log` writes one readable
 * line per request.
 */
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HNSWStore, localMemoryIndex } from "../../src/index.js";
import { waitForLine } from "../helpers/spawn-child.js";
import { tempDir } from "../helpers/temp-dir.js";
import { runCli, spawnCli } from "./run-cli.js";

vi.setConfig({ testTimeout: 300_000 });

let tmp: { dir: string; cleanup: () => void };
beforeEach(() => {
  tmp = tempDir("cli-live-search-");
});
afterEach(() => tmp.cleanup());

describe("search on a live directory", () => {
  it("ranks by meaning with the directory's vectors while serve holds it", async () => {
    const dir = path.join(tmp.dir, "memory");
    expect((await runCli(["--path", dir, "init"])).code).toBe(0);
    const store = new HNSWStore({ path: dir, index: localMemoryIndex() });
    await store.put(["users", "ada"], "pet", { text: "User has a cat named Miso." });
    await store.put(["users", "ada"], "diet", { text: "User is vegetarian." });
    await store.put(["users", "ada"], "job", { text: "User works as a nurse at night." });
    await store.close();

    const server = spawnCli(["--json", "--path", dir, "serve", "--port", "0", "--log"]);
    let stderr = "";
    server.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    try {
      const url = (JSON.parse(await waitForLine(server, /"url"/)) as { url: string }).url;
      const hit = await runCli(["--path", dir, "search", "users.ada", "what should I cook for dinner?", "--limit", "3"]);
      expect(hit.code, hit.stderr).toBe(0);
      expect(hit.stderr).toMatch(/in use by process \d+ .*read-only view .*ranked by meaning with its stored vectors/);
      const rows = hit.stdout.trim().split("\n").slice(2); // below the header and its rule
      expect(rows).toHaveLength(3);
      expect(rows[0]).toMatch(/^0\.\d{3} +users\.ada +diet +User is vegetarian\.$/);
      for (const row of rows) expect(row).toMatch(/^-?0\.\d{3} /); // cosines of the (adapted) query: the last may be below 0

      // --log: one readable line per request, not pino JSON.
      expect((await fetch(`${url}/store/namespaces`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(200);
      await vi.waitFor(() => expect(stderr).toMatch(/^\d\d:\d\d:\d\d POST \/store\/namespaces 200 \d+\.\d ms$/m), { timeout: 10_000 });
      expect(stderr).not.toContain('{"level"');
    } finally {
      server.kill("SIGKILL");
    }
  });
});
