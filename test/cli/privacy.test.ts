/**
 * `audit`, `history` and `restore` on a real directory, through the real CLI
 * (spawned). Embeddings: the FakeEmbeddings TEST DOUBLE (fixtures/fake-embedder.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog, HNSWStore, ProtectedStore, runAsActor } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { FAKE, runCli } from "./run-cli.js";

let tmp: ReturnType<typeof tempDir>;
let dir: string;
beforeAll(async () => {
  tmp = tempDir("cli-privacy-");
  dir = path.join(tmp.dir, "store");
  const store = new ProtectedStore(new HNSWStore({ path: dir, index: { dims: 16, embeddings: new FakeEmbeddings({ dims: 16 }) } }), {
    history: true,
    audit: new AuditLog({ path: path.join(dir, "audit") }),
  });
  await store.put(["users", "42"], "city", { text: "User lives in Berlin.", source: "extractor" });
  await runAsActor({ source: "api", identity: "ops" }, () => store.put(["users", "42"], "city", { text: "User lives in Lisbon.", source: "extractor" }));
  await store.close();
});
afterAll(() => tmp.cleanup());

describe("privacy commands", () => {
  it("history lists kept versions and restore puts one back; audit shows and verifies the trail", async () => {
    const history = await runCli(["--path", dir, "--json", "history", "users.42", "city"]);
    expect(history.code, history.stderr).toBe(0);
    const versions = JSON.parse(history.stdout) as { version: number; value: { text: string }; source: string }[];
    expect(versions.map((v) => [v.value.text, v.source])).toEqual([["User lives in Berlin.", "api"]]);

    const restored = await runCli(["--path", dir, "restore", "users.42", "city", String(versions[0].version), "--embeddings", FAKE]);
    expect(restored.code, restored.stderr).toBe(0);
    const got = await runCli(["--path", dir, "--json", "get", "users.42", "city"]);
    expect(JSON.parse(got.stdout).value.text).toBe("User lives in Berlin.");

    const audit = await runCli(["--path", dir, "--json", "audit"]);
    expect(audit.code, audit.stderr).toBe(0);
    expect((JSON.parse(audit.stdout) as { op: string }[]).map((e) => e.op)).toEqual(["put", "update"]);
    expect(audit.stdout).not.toContain("Berlin");
    expect((await runCli(["--path", dir, "audit", "--verify"])).stdout).toMatch(/intact: 2 entries/);

    const log = path.join(dir, "audit", "audit.log");
    fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace('"op":"update"', '"op":"delete"'));
    const broken = await runCli(["--path", dir, "audit", "--verify"]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/audit chain broken at line 2/);

    const bad = await runCli(["--path", dir, "restore", "users.42", "city", "nope"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/version must be a positive integer/);
  });
});
