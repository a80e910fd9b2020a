/**
 * The package inside LangGraph's own JS API server: `langgraphjs dev`
 * (@langchain/langgraph-cli 1.5.1 → @langchain/langgraph-api 1.5.1), run on
 * a loopback port with examples/langgraph-server/, driven by the official
 * SDK (@langchain/langgraph-sdk: threads, runs, streaming, store).
 *
 * Real: the server, its auth handler, its checkpointer, HNSWStore on a temp
 * directory, the USE-lite embedder, the package's memory server over real
 * HTTP. The chat model is the examples' OFFLINE SCRIPTED STAND-IN (a
 * rule-based fake, not a language model).
 *
 * The server replaces every graph's store with its own index-less
 * InMemoryStore; these tests show the memory lands in the package's store
 * anyway (and not in the server's).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HNSWStore, UniversalSentenceEncoderEmbeddings } from "../../src/index.js";
import { startMemoryServer, type RunningMemoryServer } from "../../src/server/index.js";
import { startDevServer, writeProject, type DevServer } from "./dev-server.js";

const TOKENS = "alice-token=alice,bob-token=bob";
const TIMEOUT = 180_000;

type Msg = { type?: string; role?: string; content: unknown };
const text = (m: Msg) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const lastAi = (values: unknown) => {
  const messages = ((values as { messages?: Msg[] }).messages ?? []).filter((m) => m.type === "ai" && text(m) !== "");
  return messages.length ? text(messages[messages.length - 1]) : "";
};

function as(url: string, token: string) {
  return new Client({ apiUrl: url, apiKey: null, defaultHeaders: { authorization: `Bearer ${token}` } });
}

/** One run in a new thread, with `runs.wait`. */
async function say(client: Client, graph: string, content: string, extra: Record<string, unknown> = {}): Promise<string> {
  const thread = await client.threads.create();
  const values = await client.runs.wait(thread.thread_id, graph, { input: { messages: [{ role: "user", content }] }, ...extra });
  return lastAi(values);
}

/** One run in a new thread, streamed (`runs.stream`, values mode); the last state's reply. */
async function ask(client: Client, graph: string, content: string): Promise<string> {
  const thread = await client.threads.create();
  let last: unknown = {};
  let chunks = 0;
  for await (const chunk of client.runs.stream(thread.thread_id, graph, { input: { messages: [{ role: "user", content }] }, streamMode: "values" })) {
    if (chunk.event === "error") throw new Error(`run failed: ${JSON.stringify(chunk.data)}`);
    if (chunk.event === "values") {
      last = chunk.data;
      chunks++;
    }
  }
  expect(chunks).toBeGreaterThan(1); // streamed state by state, not one answer
  return lastAi(last);
}

const WARNING = /langgraph-hnsw-memory: the runtime passed a store \(InMemoryStore, on config\.store\) and this memory component has its own `store` option \((HNSWStore|RemoteStore)\)/g;

describe("langgraph dev: memory in an HNSWStore in the server's process (LANGGRAPH_MEMORY_PATH)", () => {
  let dir: string;
  let server: DevServer;
  const env = () => ({ LANGGRAPH_MEMORY_PATH: path.join(dir, "memory"), EXAMPLE_AUTH_TOKENS: TOKENS });

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "lg-dev-hnsw-"));
    writeProject(dir);
    server = await startDevServer(dir, env());
  }, TIMEOUT);
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }, TIMEOUT);

  it("recalls by meaning in another thread of the same user, not for another user, and only for the user the server authenticated", async () => {
    const alice = as(server.url, "alice-token");
    const bob = as(server.url, "bob-token");
    await expect(as(server.url, "nobody").threads.create()).rejects.toThrow(/401|unknown or missing bearer token/);

    expect(await say(alice, "memory_graph", "I'm vegetarian. I live in Lisbon. I play the cello. I work as a nurse.")).toBe("Thanks, good to know.");
    // In another thread, the dinner question shares no word with "vegetarian": recalled by meaning (3 of 4 facts preloaded).
    const dinner = await ask(alice, "memory_graph", "What should I cook for dinner tonight?");
    expect(dinner).toContain("User is vegetarian.");
    expect(dinner).not.toMatch(/beef|chicken|salmon/);
    expect(dinner.match(/User /g)?.length ?? 0).toBeLessThanOrEqual(3);

    // Bob has none of it.
    const bobs = await ask(bob, "memory_graph", "What should I cook for dinner tonight?");
    expect(bobs).toMatch(/^How about: /);
    expect(bobs).not.toContain("vegetarian");

    // A request body naming another user changes nothing: the server's auth decides.
    expect(
      await say(bob, "memory_graph", "I'm allergic to peanuts.", {
        config: { configurable: { langgraph_auth_user_id: "alice", user_id: "alice" } },
        context: { langgraph_auth_user_id: "alice", user_id: "alice" },
      }),
    ).toBe("Thanks, good to know.");
    expect(await ask(alice, "memory_graph", "What do you remember about me?")).not.toContain("peanuts");
    expect(await ask(bob, "memory_graph", "What do you remember about me?")).toContain("User is allergic to peanuts.");

    // The server's own store (what `client.store.*` of the API server shows) got none of it.
    expect((await alice.store.searchItems(["users", "alice"], { limit: 100 })).items).toEqual([]);
    expect((await alice.store.searchItems(["users"], { limit: 100 })).items).toEqual([]);

    // The replacement of the server's store was said once, naming both stores.
    expect(server.log().match(WARNING)?.length).toBe(1);
  }, TIMEOUT);

  it("the createAgent + memoryMiddleware agent shares the same memory", async () => {
    const alice = as(server.url, "alice-token");
    expect(await say(alice, "memory_agent", "I have a cat.")).not.toBe("");
    const reply = await ask(alice, "memory_agent", "What do you remember about me?");
    expect(reply).toContain("User is vegetarian.");
    expect(reply).toContain("has a cat");
    expect(await ask(as(server.url, "bob-token"), "memory_agent", "What do you remember about me?")).not.toMatch(/vegetarian|cat/);
  }, TIMEOUT);

  it("memories survive a restart of the server", async () => {
    await server.stop();
    server = await startDevServer(dir, env());
    const dinner = await ask(as(server.url, "alice-token"), "memory_graph", "Any idea for dinner?");
    expect(dinner).toContain("User is vegetarian.");
    expect(await ask(as(server.url, "bob-token"), "memory_graph", "What do you remember about me?")).toContain("User is allergic to peanuts.");
  }, TIMEOUT);
});

describe("langgraph dev: memory in the package's memory server (LANGGRAPH_MEMORY_URL, RemoteStore)", () => {
  const KEY = "test-memory-key-0123456789";
  let dir: string;
  let memory: RunningMemoryServer;
  let server: DevServer;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "lg-dev-remote-"));
    writeProject(dir);
    const store = new HNSWStore({
      path: path.join(dir, "memory-server"),
      index: { dims: 512, embeddings: new UniversalSentenceEncoderEmbeddings(), fields: ["text"] },
    });
    memory = await startMemoryServer({ store, apiKey: KEY, port: 0, handleSignals: false, logger: false });
    server = await startDevServer(dir, { LANGGRAPH_MEMORY_URL: memory.url, LANGGRAPH_MEMORY_API_KEY: KEY, EXAMPLE_AUTH_TOKENS: TOKENS });
  }, TIMEOUT);
  afterAll(async () => {
    await server?.stop();
    await memory?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }, TIMEOUT);

  it("the SDK's client.store on the memory server shows the memories the graphs wrote, ranked by meaning", async () => {
    const alice = as(server.url, "alice-token");
    await say(alice, "memory_agent", "I'm vegetarian. I live in Lisbon. I play the cello.");
    await say(as(server.url, "bob-token"), "memory_graph", "I'm allergic to peanuts.");
    expect(await ask(alice, "memory_graph", "What should I cook for dinner tonight?")).toContain("User is vegetarian.");

    const store = new Client({ apiUrl: memory.url, apiKey: KEY }).store;
    const ranked = await store.searchItems(["users", "alice"], { query: "what should I cook for dinner", limit: 10 });
    const texts = ranked.items.map((i) => String(i.value.text));
    expect(texts).toEqual(expect.arrayContaining(["User is vegetarian.", "User lives in Lisbon.", "User plays the cello."]));
    expect(texts[0]).toBe("User is vegetarian.");
    expect(ranked.items.every((i) => typeof i.score === "number")).toBe(true);
    const bobs = (await store.searchItems(["users", "bob"], { limit: 10 })).items.map((i) => String(i.value.text));
    expect(bobs).toEqual(["User is allergic to peanuts."]);
    const namespaces = await store.listNamespaces({ prefix: ["users"], limit: 100 });
    expect(namespaces.namespaces).toEqual(expect.arrayContaining([["users", "alice"], ["users", "bob"]]));

    // The API server's own store holds none of it.
    expect((await alice.store.searchItems(["users"], { limit: 100 })).items).toEqual([]);
    expect(server.log().match(WARNING)?.length).toBe(1);
  }, TIMEOUT);
});
