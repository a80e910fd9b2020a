/**
 * Interactive chatbot with long-term memory across threads.
 *
 *   npm run chat -- --user 42 --thread monday
 *
 * Type messages; /help lists the commands. See USAGE in args.ts.
 */
import readline from "node:readline";
import { parseChatArgs, USAGE } from "./args.js";
import { HELP, formatSaved, runCommand } from "./commands.js";
import { chooseEmbeddings, chooseModel, isUnreachable, unreachableMessage } from "./providers.js";
import { ChatSession } from "./session.js";

async function main(): Promise<number> {
  let args;
  try {
    args = parseChatArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const chosen = await chooseModel({ model: args.model, offline: args.offline });
  if (chosen.hint) console.log(chosen.hint);
  const embedder = await chooseEmbeddings({ choice: args.embeddings, model: args.embeddingsModel });
  const session = await ChatSession.open({
    dataDir: args.data,
    userId: args.user,
    thread: args.thread,
    mode: args.mode,
    model: chosen.model,
    embeddings: embedder.embeddings,
    dims: embedder.dims,
    postgres: args.postgres,
  });
  console.log(chosen.offline ? `*** ${chosen.description} ***` : chosen.description);
  console.log(embedder.description);
  console.log(`data: ${args.data}${args.postgres ? "   memories: PostgreSQL" : ""}   mode: ${args.mode}   user: ${session.userId}   thread: ${session.thread}`);
  console.log(`Type a message, or a command:\n${HELP}\n`);

  const interactive = Boolean(process.stdin.isTTY);
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, terminal: interactive });
  const promptText = () => `[user ${session.userId} · ${session.thread}] you> `;
  const prompt = () => {
    rl.setPrompt(promptText());
    if (interactive) rl.prompt();
  };
  try {
    prompt();
    for await (const raw of rl) {
      const line = raw.trim();
      // Piped input: echo each line, so the transcript reads as a conversation.
      if (!interactive && line) console.log(`${promptText()}${line}`);
      if (!line) {
        prompt();
        continue;
      }
      try {
        const command = await runCommand(session, line);
        if (command) {
          console.log(command.output);
          if (command.quit) break;
        } else {
          const turn = await session.send(line);
          console.log(`bot> ${turn.reply}`);
          for (const change of formatSaved(turn.saved)) console.log(`     (memory ${change})`);
        }
      } catch (e) {
        console.error(!chosen.offline && isUnreachable(e) ? unreachableMessage(chosen, e) : `error: ${(e as Error).message}`);
      }
      prompt();
    }
  } finally {
    rl.close();
    await session.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
