import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { runAsActor } from "../../privacy/actor.js";
import { lineDiff } from "../../procedures/diff.js";
import { procedureHistory, restoreProcedure } from "../../procedures/history.js";
import { listProcedureAgents } from "../../procedures/list.js";
import { getProcedure } from "../../procedures/store.js";
import type { ProcedureRecord, ProcedureScope } from "../../procedures/types.js";
import type { HNSWStore } from "../../store/hnsw/hnsw-store.js";
import { openStore, requireStore, storeDir } from "../open-store.js";
import { clip, printFields, printJson, printTable } from "../output.js";
import { globals, intOption, type GlobalOptions } from "./globals.js";

interface ScopeFlags {
  user?: string;
  name?: string;
}

const scopeOf = (agentId: string, o: ScopeFlags): ProcedureScope => ({
  agentId,
  ...(o.user === undefined ? {} : { userId: o.user }),
  ...(o.name === undefined ? {} : { name: o.name }),
});

const who = (s: ProcedureScope) => `${s.agentId}${s.userId === undefined ? "" : ` (user ${s.userId})`}`;

async function withStore<T>(g: GlobalOptions, work: (store: HNSWStore) => Promise<T>): Promise<T> {
  const dir = storeDir(g.path);
  requireStore(dir);
  const store = await openStore(dir);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

function versionOf(history: ProcedureRecord[], arg: string, scope: ProcedureScope): ProcedureRecord {
  const n = intOption(arg, "version", 1);
  const found = history.find((r) => r.version === n);
  if (!found) throw new CliError(`no version ${n} of the instructions of ${who(scope)} (versions: ${history.map((r) => r.version).join(", ") || "none"})`);
  return found;
}

/** `procedures list | show | history | diff | restore`: an agent's learned instructions. */
export function registerProcedureCommands(program: Command): void {
  const procedures = program.command("procedures").description("learned instructions (procedural memory): list, show, history, diff, restore");
  const scoped = (cmd: Command) => cmd.option("--user <id>", "a user's own instructions instead of the agent's").option("--name <name>", "the prompt's name (default: instructions)");

  procedures
    .command("list")
    .description("agents with learned instructions, and the users with their own")
    .action(async (_o, cmd: Command) => {
      const agents = await withStore(globals(cmd), (store) => listProcedureAgents(store));
      if (globals(cmd).json) return printJson(agents);
      if (agents.length === 0) return void process.stdout.write("no learned instructions\n");
      printTable(["agent", "agent-wide", "users"], agents.map((a) => [a.agentId, a.agentWide ? "yes" : "no", a.users.length === 0 ? "-" : clip(a.users.join(", "), 50)]));
    });

  scoped(procedures.command("show").argument("<agent>").description("the current learned instructions")).action(async (agent: string, o: ScopeFlags, cmd: Command) => {
    const scope = scopeOf(agent, o);
    const record = await withStore(globals(cmd), (store) => getProcedure(store, scope));
    if (globals(cmd).json) return printJson(record ?? null);
    if (!record) throw new CliError(`no learned instructions for ${who(scope)}`);
    printFields([
      ["agent", who(scope)],
      ["version", record.version],
      ["changed", `${record.changedAt} by ${record.source}${record.identity ? ` (${record.identity})` : ""}`],
      ["reason", clip(record.reason, 100)],
    ]);
    process.stdout.write(`\n${record.instructions}\n`);
  });

  scoped(procedures.command("history").argument("<agent>").description("every version, newest first, with who or what changed it and why")).action(
    async (agent: string, o: ScopeFlags, cmd: Command) => {
      const scope = scopeOf(agent, o);
      const history = await withStore(globals(cmd), (store) => procedureHistory(store, scope));
      if (globals(cmd).json) return printJson(history);
      if (history.length === 0) return void process.stdout.write(`no learned instructions for ${who(scope)}\n`);
      printTable(
        ["version", "changed", "source", "+/-", "feedback", "reason"],
        history.map((r) => [r.version, r.changedAt, r.source + (r.restoredFrom ? ` of v${r.restoredFrom}` : ""), `+${r.diff.added}/-${r.diff.removed}`, r.feedbackIds.length, clip(r.reason, 50)]),
      );
    },
  );

  scoped(procedures.command("diff").argument("<agent>").argument("<from>", "a version").argument("[to]", "a version (default: the current one)").description("the line diff between two versions")).action(
    async (agent: string, from: string, to: string | undefined, o: ScopeFlags, cmd: Command) => {
      const scope = scopeOf(agent, o);
      const history = await withStore(globals(cmd), (store) => procedureHistory(store, scope));
      if (history.length === 0) throw new CliError(`no learned instructions for ${who(scope)}`);
      const a = versionOf(history, from, scope);
      const b = to === undefined ? history[0] : versionOf(history, to, scope);
      const diff = lineDiff(a.instructions, b.instructions);
      if (globals(cmd).json) return printJson({ from: a.version, to: b.version, ...diff });
      process.stdout.write(`--- version ${a.version}\n+++ version ${b.version}\n${diff.text}\n`);
    },
  );

  scoped(procedures.command("restore").argument("<agent>").argument("<version>", "a version from `procedures history`").option("--reason <text>", "why (kept with the new version)"))
    .description("put an earlier version back, as a new version")
    .action(async (agent: string, version: string, o: ScopeFlags & { reason?: string }, cmd: Command) => {
      const scope = scopeOf(agent, o);
      const n = intOption(version, "version", 1);
      const change = await withStore(globals(cmd), (store) =>
        runAsActor({ source: "cli" }, () => restoreProcedure(store, scope, n, o.reason === undefined ? {} : { reason: o.reason })),
      );
      if (globals(cmd).json) return printJson(change.record);
      printFields([
        ["restored", `version ${n} of ${who(scope)}`],
        ["version", `${change.record.version}${change.changed ? "" : " (it was already current)"}`],
        ["diff", `+${change.diff.added}/-${change.diff.removed}`],
      ]);
    });
}
