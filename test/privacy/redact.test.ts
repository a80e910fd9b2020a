import { afterEach, describe, expect, it } from "vitest";
import { HNSWStore } from "../../src/store/hnsw/hnsw-store.js";
import { createMemoryTools } from "../../src/graph/tools.js";
import { ProtectedStore, createRedactor, luhnValid, ibanValid, RedactionError, InvalidArgumentError } from "../../src/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";
import { tempDir } from "../helpers/temp-dir.js";
import { allBytes } from "../helpers/all-bytes.js";
import type { Redactor } from "../../src/privacy/redact.js";

describe("built-in detectors", () => {
  const redact = createRedactor();
  it("replaces e-mail addresses, phone numbers, valid card numbers, valid IBANs and API-key-like secrets with typed placeholders", () => {
    expect(redact("write to ana.silva+work@example.co.uk today")).toBe("write to [EMAIL] today");
    expect(redact("call +351 912 345 678 or (030) 1234 5678")).toBe("call [PHONE] or [PHONE]");
    expect(redact("card 4111 1111 1111 1111 exp 12/29")).toBe("card [CARD] exp 12/29");
    expect(redact("card 4111-1111-1111-1111")).toBe("card [CARD]");
    expect(redact("IBAN DE89 3704 0044 0532 0130 00 please")).toBe("IBAN [IBAN] please");
    expect(redact("key sk-proj-abcdefghijklmnop1234 and ghp_abcdefghijklmnopqrstuvwxyz0123456789")).toBe("key [SECRET] and [SECRET]");
  });
  it("leaves numbers that fail the checksums, and ordinary text, alone", () => {
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(redact("order 4111 1111 1111 1112 shipped")).not.toContain("[CARD]");
    expect(ibanValid("DE89370400440532013001")).toBe(false);
    expect(redact("I am 42 and vegetarian since 2019")).toBe("I am 42 and vegetarian since 2019");
  });
  it("takes custom patterns and refuses unknown detectors or non-global patterns", () => {
    expect(createRedactor({ detectors: [], patterns: { EMPLOYEE: /\bEMP-\d{6}\b/g } })("id EMP-123456")).toBe("id [EMPLOYEE]");
    expect(() => createRedactor({ detectors: ["ssn" as never] })).toThrow(InvalidArgumentError);
    expect(() => createRedactor({ patterns: { X: /x/ } })).toThrow(/global/);
  });
});

describe("redaction before storage and before the embedder", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function make(redactor: Redactor) {
    const t = tempDir();
    const embeddings = new FakeEmbeddings({ dims: 32 });
    const inner = new HNSWStore({ path: t.dir, index: { dims: 32, embeddings, fields: ["text"] } });
    const store = new ProtectedStore(inner, { redactor, history: true });
    cleanups.push(t.cleanup, () => store.close());
    return { dir: t.dir, store, inner, embeddings };
  }

  it("a card number the user types never reaches the store's files or the embedder's input", async () => {
    const { dir, store, embeddings } = make(createRedactor());
    const tools = createMemoryTools({ namespace: ["users", "{user_id}"], store });
    const remember = tools.find((t) => t.name === "remember")!;
    await remember.invoke({ content: "Pays with card 4111 1111 1111 1111, mail ana@example.com" }, { configurable: { user_id: "42" } });
    await store.put(["users", "42"], "direct", { text: "backup card 5500-0000-0000-0004", nested: { note: "IBAN GB82 WEST 1234 5698 7654 32" } });
    const search = tools.find((t) => t.name === "search_memory")!;
    await search.invoke({ query: "card 4111 1111 1111 1111" }, { configurable: { user_id: "42" } });
    const items = await store.search(["users", "42"]);
    expect(items.map((i) => i.value.text).sort()).toEqual(["Pays with card [CARD], mail [EMAIL]", "backup card [CARD]"]);
    const seen = [...embeddings.documentCalls.flat(), ...embeddings.queryCalls].join("\n");
    expect(seen).toContain("[CARD]");
    for (const secret of ["4111", "5500", "ana@example.com", "GB82"]) expect(seen).not.toContain(secret);
    await store.close();
    const bytes = allBytes(dir);
    for (const secret of ["4111 1111", "5500-0000", "ana@example.com", "GB82 WEST"]) expect(bytes).not.toContain(secret);
  });

  it("a redactor that throws fails the batch with RedactionError and writes nothing", async () => {
    const { dir, store, inner, embeddings } = make((text: string) => {
      if (text.includes("boom")) throw new Error("PII service down");
      return text;
    });
    await expect(store.batch([
      { namespace: ["u"], key: "a", value: { text: "fine" } },
      { namespace: ["u"], key: "b", value: { text: "boom secret text" } },
    ])).rejects.toThrow(RedactionError);
    expect(await inner.count()).toBe(0);
    expect(embeddings.documentCalls.flat()).toEqual([]);
    await store.close();
    expect(allBytes(dir)).not.toContain("boom secret text");
  });
});
