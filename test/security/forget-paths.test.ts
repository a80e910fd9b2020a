/**
 * Every path that forgets a person, followed by a byte scan of every file
 * the store (and its audit log) wrote. The person's data: memories (updated
 * and deleted through a ProtectedStore, so `memory_history` holds versions),
 * an extraction cursor and an episode cursor holding the last reply's text,
 * and episodes. Bob's data is the control: it must still be on disk, so a
 * scan that finds nothing is a scan that could have found something.
 * FakeEmbeddings is a TEST DOUBLE (bag of words); store, files, HTTP server
 * and CLI process are real.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { AuditLog, erasePerson, forgetEpisodes, forgetUser, HNSWStore, ProtectedStore } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { serveWithInspector } from "../helpers/forget-matrix.js";
import { runCli } from "../cli/run-cli.js";

vi.setConfig({ testTimeout: 180_000 });

const DIMS = 16;
const ALICE = ["alice-lives-at-Rua-Augusta-77", "alice-diagnosis-hypothyroid", "alice-old-version-of-her-phone-plan", "alice-last-reply-said-Lisbon-clinic", "alice-episode-about-insulin-pump"];
const BOB = ["bob-keeps-bees-in-Porto"];

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** Which of `texts` appear in any file under `dir` (as UTF-8 or as their lower-cased words, as the keyword index keeps them). */
function onDisk(dir: string, texts: string[]): string[] {
  const bytes = filesUnder(dir).map((f) => fs.readFileSync(f).toString("utf8")).join("\n");
  const lower = bytes.toLowerCase();
  return texts.filter((t) => bytes.includes(t) || lower.includes(t.toLowerCase()));
}

function openStore(dir: string) {
  const inner = new HNSWStore({ path: path.join(dir, "store"), index: { dims: DIMS, embeddings: new FakeEmbeddings({ dims: DIMS }), fields: ["text"] } });
  const audit = new AuditLog({ path: path.join(dir, "audit") });
  return { inner, store: new ProtectedStore(inner, { history: true, audit }) };
}

/** Alice's and Bob's data, through the ProtectedStore (history on), then closed. */
async function seed(dir: string): Promise<string[]> {
  const { store } = openStore(dir);
  const alice = ["users", "alice"];
  await store.put(alice, "home", { text: ALICE[0] });
  await store.put(alice, "health", { text: "placeholder" });
  await store.put(alice, "health", { text: ALICE[1] }); // the placeholder becomes a version
  await store.put(alice, "plan", { text: ALICE[2] });
  await store.delete(alice, "plan"); // a deleted memory: only its version holds the text
  await store.put(["memory_cursors", "users", "alice"], "thread-1", { processed: 4, lastReply: ALICE[3] }, false);
  await store.put([...alice, "episodes"], "t1-0", { text: ALICE[4] });
  await store.put(["episode_cursors", "users", "alice", "episodes"], "thread-1", { turn: 1, lastReply: ALICE[3] }, false);
  await store.put(["users", "bob"], "bees", { text: BOB[0] });
  await store.close();
  return ["home", "health"];
}

/** A memory server over the store, with the inspector, on 127.0.0.1. */
const serve = (dir: string) => serveWithInspector(openStore(dir).store);

const PATHS: Record<string, (dir: string, keys: string[]) => Promise<void>> = {
  "HNSWStore.deleteNamespace": async (dir) => {
    const { inner } = openStore(dir);
    await inner.deleteNamespace(["users", "alice"]);
    await inner.close();
  },
  "ProtectedStore.deleteNamespace": async (dir) => {
    const { store, inner } = openStore(dir);
    await store.deleteNamespace(["users", "alice"]);
    await inner.compact();
    await store.close();
  },
  erasePerson: async (dir) => {
    const { store } = openStore(dir);
    await erasePerson(store, { namespaces: [["users", "alice"]] });
    await store.close();
  },
  forgetUser: async (dir) => {
    const { store } = openStore(dir);
    await forgetUser(store, ["users", "{user_id}"], { user_id: "alice" });
    await store.close();
  },
  "POST /v1/store/memories/forget all": async (dir) => {
    const s = await serve(dir);
    const r = await s.post("/v1/store/memories/forget", { user_id: "alice", all: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await s.close();
  },
  "inspector Forget this user": async (dir) => {
    const s = await serve(dir);
    const r = await s.post("/inspector/api/forget", { namespace: ["users", "alice"], confirm: "users.alice" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await s.close();
  },
  "langgraph-memory forget (CLI)": async (dir) => {
    const r = await runCli(["--path", path.join(dir, "store"), "forget", "users.alice", "--yes"]);
    expect(r.code, r.stderr).toBe(0);
  },
};

const tally = { tried: 0, held: 0, failures: [] as string[] };
afterAll(() => console.log(`forget paths: ${tally.held}/${tally.tried} held${tally.failures.length ? `; left on disk: ${tally.failures.join(" | ")}` : ""}`));

describe("every forget path leaves none of the person's texts in any file", () => {
  for (const [name, run] of Object.entries(PATHS)) {
    it(name, async () => {
      const t = tempDir("forget-path-");
      try {
        const keys = await seed(t.dir);
        expect(onDisk(t.dir, [...ALICE, ...BOB])).toEqual([...ALICE, ...BOB]);
        await run(t.dir, keys);
        const left = onDisk(t.dir, ALICE);
        tally.tried++;
        if (left.length === 0) tally.held++;
        else tally.failures.push(`${name}: ${left.join(", ")}`);
        expect(left).toEqual([]);
        // The control: Bob's memory is untouched and still on disk.
        expect(onDisk(t.dir, BOB)).toEqual(BOB);
      } finally {
        t.cleanup();
      }
    });
  }

  it("POST /v1/store/memories/forget by ids: those memories and all their versions leave the disk", async () => {
    const t = tempDir("forget-ids-");
    try {
      await seed(t.dir);
      const s = await serve(t.dir);
      const r = await s.post("/v1/store/memories/forget", { user_id: "alice", ids: ["home", "health"] });
      expect(r.body).toEqual({ deleted: 2, ids: ["home", "health"] });
      await s.close();
      tally.tried++;
      const left = onDisk(t.dir, [ALICE[0]!, ALICE[1]!, "placeholder"]);
      if (left.length === 0) tally.held++;
      else tally.failures.push(`forget by ids: ${left.join(", ")}`);
      expect(left).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it("forgetEpisodes: the turns, their kept versions and the episode cursor leave the disk", async () => {
    const t = tempDir("forget-episodes-");
    try {
      await seed(t.dir);
      const { store } = openStore(t.dir);
      const later = "alice-episode-rewritten-with-her-address";
      await store.put(["users", "alice", "episodes"], "t1-0", { text: later }); // the old turn becomes a version
      await store.put(["episode_cursors", "users", "alice", "episodes"], "thread-1", { turn: 2, lastReply: "alice-episode-cursor-reply" }, false);
      await store.close();
      expect(onDisk(t.dir, [ALICE[4]!, later, "alice-episode-cursor-reply"])).toHaveLength(3);
      const again = openStore(t.dir);
      expect(await forgetEpisodes(again.store, ["users", "alice", "episodes"])).toBe(1);
      await again.store.close();
      tally.tried++;
      const left = onDisk(t.dir, [ALICE[4]!, later, "alice-episode-cursor-reply"]);
      if (left.length === 0) tally.held++;
      else tally.failures.push(`forgetEpisodes: ${left.join(", ")}`);
      expect(left).toEqual([]);
      expect(onDisk(t.dir, BOB)).toEqual(BOB);
    } finally {
      t.cleanup();
    }
  });
});
