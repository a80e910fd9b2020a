import { describe, expect, it } from "vitest";
import { cleanFacts, looksSecret, parseFacts, parseJsonFromReply, stripReasoning } from "../../src/extract/parse.js";
import { factKey, normaliseFact, renderTranscript, toPlainMessages } from "../../src/extract/messages.js";
import { parseDecisionsReply } from "../../src/extract/consolidate.js";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";

describe("lenient parsing of model replies", () => {
  it("reads a fenced JSON array", () => {
    expect(parseFacts('```json\n["User lives in Lisbon.", "User likes jazz."]\n```')).toEqual(["User lives in Lisbon.", "User likes jazz."]);
  });

  it("reads JSON wrapped in prose, with brackets in the prose", () => {
    const reply = 'Sure [as requested]! Here are the facts:\n["User is a nurse.", "User has 2 kids [twins]."]\nLet me know if you need more.';
    expect(parseFacts(reply)).toEqual(["User is a nurse.", "User has 2 kids [twins]."]);
  });

  it("drops <think> blocks, even ones holding JSON", () => {
    const reply = '<think>maybe ["wrong"]? no.</think>\n["User prefers tea."]';
    expect(stripReasoning(reply)).toBe('["User prefers tea."]');
    expect(parseFacts(reply)).toEqual(["User prefers tea."]);
    expect(parseFacts('<think>cut off mid-thought ["x"]')).toBeUndefined();
  });

  it("accepts items as {fact}, {text} objects and a {facts: [...]} wrapper", () => {
    expect(parseFacts('[{"fact": "User is vegan."}, {"text": "User runs."}, 42, "User sings."]')).toEqual(["User is vegan.", "User runs.", "User sings."]);
    expect(parseFacts('{"facts": ["User is vegan."]}')).toEqual(["User is vegan."]);
  });

  it("returns [] for an empty list and undefined for garbage", () => {
    expect(parseFacts("[]")).toEqual([]);
    expect(parseFacts("I could not find anything.")).toBeUndefined();
    expect(parseFacts('["unterminated')).toBeUndefined();
    expect(parseFacts("{not json}")).toBeUndefined();
    expect(parseJsonFromReply('{"a": 1} and [1]', "object")).toEqual({ a: 1 });
  });

  it("reads consolidation decisions leniently", () => {
    const d = parseDecisionsReply('```\n[{"fact": "f2", "action": "update", "id": "m1", "text": "x"}, {"action": "BOGUS"}]\n```', 2);
    expect(d).toEqual([{ fact: 1, action: "UPDATE", id: "m1", text: "x" }]);
    expect(parseDecisionsReply("no", 1)).toBeUndefined();
  });
});

describe("secrets and normalisation", () => {
  it("flags card numbers (Luhn), passwords and API keys, not ordinary numbers", () => {
    expect(looksSecret("User's card is 4111 1111 1111 1111")).toBe(true);
    expect(looksSecret("User's password is hunter2")).toBe(true);
    expect(looksSecret("api key: sk-abcdefghijklmnopqrstuv")).toBe(true);
    expect(looksSecret("User was born in 1984 and has 2 kids")).toBe(false);
    expect(looksSecret("User's order number is 1234 5678 9012 3456")).toBe(false); // fails Luhn
  });

  it("cleans: trims, dedupes by normalised text, drops secrets", () => {
    const { facts, dropped } = cleanFacts(["  User likes tea. ", "user likes TEA", "PIN is 1234", ""], normaliseFact);
    expect(facts).toEqual(["User likes tea."]);
    expect(dropped).toEqual(["PIN is 1234"]);
  });

  it("gives the same key to the same fact however it is spaced or cased", () => {
    expect(factKey("User likes  tea.")).toBe(factKey("user likes tea"));
    expect(factKey("User likes tea.")).not.toBe(factKey("User likes coffee."));
  });

  it("accepts LangChain and OpenAI-style messages and leaves out system and tool turns", () => {
    const lc = toPlainMessages([new SystemMessage("memories: ..."), new HumanMessage("hi"), new AIMessage("hello"), new ToolMessage({ content: "hits", tool_call_id: "1" })]);
    const oa = toPlainMessages([{ role: "system", content: "memories" }, { role: "user", content: [{ type: "text", text: "hi" }] }, { role: "assistant", content: "hello" }]);
    expect(renderTranscript(lc)).toBe("User: hi\nAssistant: hello");
    expect(renderTranscript(oa)).toBe("User: hi\nAssistant: hello");
  });
});
