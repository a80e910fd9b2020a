import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { EncryptedSerializer, EncryptionError } from "../../src/index.js";
import { ScriptedChatModel } from "../helpers/scripted-chat-model.js";
import { tempDir } from "../helpers/temp-dir.js";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function graphWith(checkpointer: SqliteSaver) {
  // TEST DOUBLE: a scripted chat model (no LLM here).
  const model = new ScriptedChatModel({ turns: [], fallback: "Noted: you take warfarin daily." });
  return new StateGraph(MessagesAnnotation)
    .addNode("model", async (s) => ({ messages: [await model.invoke(s.messages)] }))
    .addEdge("__start__", "model")
    .compile({ checkpointer });
}

describe("encrypted threads (checkpointer serde)", () => {
  it("a real SqliteSaver with EncryptedSerializer keeps no message text in clear, and resumes the thread with the key", async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const file = path.join(t.dir, "threads.sqlite");
    const key = randomBytes(32);
    const db = SqliteSaver.fromConnString(file).db;
    const saver = new SqliteSaver(db, await EncryptedSerializer.create({ key }));
    const cfg = { configurable: { thread_id: "t1" } };
    await graphWith(saver).invoke({ messages: [new HumanMessage("I take warfarin daily")] }, cfg);
    db.close();
    const bytes = fs.readdirSync(t.dir).map((f) => fs.readFileSync(path.join(t.dir, f)).toString("latin1")).join("");
    expect(bytes).not.toContain("warfarin");

    const db2 = SqliteSaver.fromConnString(file).db;
    const state = await graphWith(new SqliteSaver(db2, await EncryptedSerializer.create({ key: key.toString("hex") }))).getState(cfg);
    expect(state.values.messages.map((m: { content: unknown }) => m.content)).toEqual(["I take warfarin daily", "Noted: you take warfarin daily."]);
    const wrong = new SqliteSaver(db2, await EncryptedSerializer.create({ key: randomBytes(32) }));
    await expect(graphWith(wrong).getState(cfg)).rejects.toThrow(EncryptionError);
    db2.close();
  });
});
