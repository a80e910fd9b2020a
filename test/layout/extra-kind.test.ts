/**
 * A fourth kind of memory, declared once in a custom layout, reaches every
 * door without touching them: recall (withMemory preloads it in its own
 * section, from the turn's one query embedding), forget (erasePerson and the
 * inspector's Forget erase it with its kept versions; a byte scan of every
 * file finds none of it), export (counted per kind) and the inspector (its
 * namespaces listed as that kind; "Forget" from one of them forgets the
 * whole person). Real HNSWStore on disk and real HTTP on loopback;
 * FakeEmbeddings and ScriptedChatModel are TEST DOUBLES.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import Fastify from "fastify";
import { defaultMemoryLayout, defineMemoryLayout } from "../../src/scope/memory-layout.js";
import { erasePerson } from "../../src/privacy/erase-person.js";
import { exportStore } from "../../src/migrate/index.js";
import { withMemory } from "../../src/graph/with-memory.js";
import { inspectorPlugin } from "../../src/server/inspector/plugin.js";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { InvalidArgumentError } from "../../src/errors.js";
import { allBytes } from "../helpers/all-bytes.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";

const layout = defaultMemoryLayout({ extra: [{ name: "notes", namespace: ["notes", "{user_id}"], recall: { heading: "Notes the user asked to keep:", limit: 2 } }] });
const NOTE = "notekeepsecretword77";
const NOTE_OLD = "noteoldversionword78";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function seeded() {
  const dir = await mkdtemp(join(tmpdir(), "extra-kind-"));
  dirs.push(dir);
  const embeddings = new FakeEmbeddings({ dims: 32 });
  const store = new HNSWStore({ path: dir, index: { dims: 32, embeddings, fields: ["text"] }, embeddingCache: false });
  await store.put(["users", "42"], "tea", { text: "User drinks green tea." });
  await store.put(["notes", "42"], "n1", { text: `parking spot ${NOTE}` });
  await store.put(["memory_history", "notes", "42"], "n1@1", { key: "n1", version: 1, value: { text: NOTE_OLD }, op: "update" }, false);
  await store.put(["notes", "7"], "n1", { text: "bob parking spot controlword99" });
  return { dir, store, embeddings };
}

describe("an extra kind declared in a custom layout", () => {
  it("recall: withMemory preloads it in its own section, with the facts, from one query embedding", async () => {
    const { store, embeddings } = await seeded();
    const model = new ScriptedChatModel({ turns: [], fallback: "ok" });
    const graph = withMemory(new StateGraph(MessagesAnnotation), { model, namespace: ["users", "{user_id}"], store, layout }).compile();
    await graph.invoke({ messages: [new HumanMessage("where is my parking spot?")] }, { configurable: { thread_id: "t", user_id: "42" } });
    const block = model.calls[0]!.filter((m) => m.getType() === "system").map((m) => String(m.content)).join("\n");
    expect(block).toContain("Notes the user asked to keep:\n- parking spot " + NOTE);
    expect(block).toContain("green tea");
    expect(block).toContain("facts remembered about the user and notes kept about the user");
    expect(block).not.toContain("controlword99");
    expect(embeddings.queryCalls).toEqual(["where is my parking spot?"]);
    await store.close();
  });

  it("export counts it as its own kind", async () => {
    const { dir, store } = await seeded();
    const report = await exportStore(store, join(dir, "..", `${dir.split("/").pop()}.jsonl`), { layout });
    dirs.push(join(dir, "..", `${dir.split("/").pop()}.jsonl`));
    expect(report.kinds).toMatchObject({ facts: 1, notes: 2, bookkeeping: 1, other: 0 });
    await store.close();
  });

  it("inspector: listed as that kind; Forget from a notes namespace forgets the whole person, and the bytes leave every file", async () => {
    const { dir, store } = await seeded();
    const app = Fastify();
    await app.register(inspectorPlugin, { store, layout });
    const list = await app.inject({ method: "GET", url: "/inspector/api/namespaces" });
    const namespaces = (list.json() as { namespaces: { namespace: string[]; memoryKind?: string }[] }).namespaces;
    expect(namespaces.find((n) => n.namespace.join(".") === "notes.42")?.memoryKind).toBe("notes");
    const info = (await app.inject({ method: "GET", url: "/inspector/api/info" })).json() as { kinds: { name: string }[] };
    expect(info.kinds.map((k) => k.name)).toEqual(["facts", "episodes", "procedures", "notes"]);
    const r = await app.inject({ method: "POST", url: "/inspector/api/forget", payload: { namespace: ["notes", "42"], confirm: "42" } });
    expect(r.statusCode, r.body).toBe(200);
    const report = r.json() as { person: string; kinds: Record<string, { items: number; versions: number }> };
    expect(report.person).toBe("42");
    expect(report.kinds.notes).toMatchObject({ items: 1, versions: 1 });
    expect(report.kinds.facts).toMatchObject({ items: 1 });
    await app.close();
    await store.close();
    const bytes = allBytes(dir);
    expect(bytes).not.toContain(NOTE);
    expect(bytes).not.toContain(NOTE_OLD);
    expect(bytes).toContain("controlword99");
  });

  it("erasePerson with the layout erases it; without it (today's layout) the notes stay", async () => {
    const { dir, store } = await seeded();
    const plain = await erasePerson(store, { userId: "42" });
    expect(plain.kinds?.notes).toBeUndefined();
    expect(await store.get(["notes", "42"], "n1")).not.toBeNull();
    const report = await erasePerson(store, { userId: "42", layout });
    expect(report.kinds?.notes).toMatchObject({ items: 1, versions: 1 });
    await store.close();
    expect(allBytes(dir)).not.toContain(NOTE);
  });

  it("a layout whose kinds overlap, or that cannot find a person, is refused with a named error", () => {
    expect(() => defineMemoryLayout({ kinds: [{ name: "a", namespace: ["users", "{user_id}"] }, { name: "b", namespace: ["users", "{user_id}", "notes"] }] })).toThrow(InvalidArgumentError);
    expect(() => defineMemoryLayout({ kinds: [{ name: "a", namespace: ["team", "notes"] }] })).toThrow(/no \{user_id\}/);
    expect(() => defaultMemoryLayout({ extra: [{ name: "facts", namespace: ["x", "{user_id}"] }] })).toThrow(/twice/);
    expect(() => defineMemoryLayout({ kinds: [{ name: "c", namespace: ["memory_history", "{user_id}"] }] })).toThrow(/bookkeeping root/);
  });
});
