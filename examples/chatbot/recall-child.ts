/**
 * The demo's second process: reopens the data directory the first process
 * wrote and closed, and asks one question on a new thread, printing the
 * memory context the model received.
 *
 *   node --import tsx examples/chatbot/recall-child.ts DATA_DIR USER THREAD MESSAGE
 */
import { OfflineDemoModel } from "./offline-model.js";
import { chooseEmbeddings } from "./providers.js";
import { ChatSession } from "./session.js";

async function main(): Promise<void> {
  const [dataDir, userId, thread, message] = process.argv.slice(2);
  if (!dataDir || !userId || !thread || !message) throw new Error("usage: recall-child.ts DATA_DIR USER THREAD MESSAGE");
  const { embeddings, dims } = await chooseEmbeddings({ choice: "local" });
  const session = await ChatSession.open({ dataDir, userId, thread, model: new OfflineDemoModel(), embeddings, dims });
  try {
    console.log(`process ${process.pid} opened ${dataDir}; ${await session.store.count(session.namespace)} memories for user ${userId}`);
    const turn = await session.send(message);
    console.log(`user ${userId} (thread ${thread})> ${message}`);
    console.log(turn.context ?? "(no memory context was sent to the model)");
    console.log(`bot> ${turn.reply}`);
  } finally {
    await session.close();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
