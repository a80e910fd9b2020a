import type { Command } from "commander";
import { CliError } from "../../errors.js";
import { runAsActor } from "../../privacy/actor.js";
import { lineDiff } from "../../procedures/diff.js";
import { procedureHistory, restoreProcedure } from "../../procedures/history.js";
import { listProcedureAgents } from "../../procedures/list.js";
import { applyReview, dismissReview, listReviews, type PendingReview } from "../../procedures/review.js";
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

const reviewTarget = (s: ProcedureScope) => `${s.userId === undefined ? "agent-wide" : `user ${s.userId}`}${s.name && s.name !== "instructions" ? `, ${s.name}` : ""}`;

/** A review as the table shows it. */
function reviewRow(r: PendingReview): (string | number)[] {
  const state = r.unsafe ? "unsafe" : r.current ? "ready" : `stale (now v${r.currentVersion})`;
  return [r.feedbackIds[0]!, r.proposal.at, reviewTarget(r.scope), r.proposal.reason, `+${r.diff.added}/-${r.diff.removed}`, r.feedbackIds.length, state];
}

/** `procedures list | show | history | diff | restore | reviews | apply | dismiss`: an agent's learned instructions. */
export function registerProcedureCommands(program: Command): void {
  const procedures = program.command("procedures").description("learned instructions (procedural memory): list, show, history, diff, restore, reviews, apply, dismiss");
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

  const feedbackOf = (cmd: Command) => cmd.option("--user <id>", "feedback of this user (default: the agent's own)");

  feedbackOf(procedures.command("reviews").argument("<agent>").option("--diff", "print each proposal's line diff")).description(
    "proposals kept for a person (too large to apply on their own), newest first",
  ).action(async (agent: string, o: { user?: string; diff?: boolean }, cmd: Command) => {
    const reviews = await withStore(globals(cmd), (store) => listReviews(store, { agentId: agent, ...(o.user === undefined ? {} : { userId: o.user }) }));
    if (globals(cmd).json) return printJson(reviews);
    if (reviews.length === 0) return void process.stdout.write(`no proposals waiting for review for ${who({ agentId: agent, ...(o.user === undefined ? {} : { userId: o.user }) })}\n`);
    printTable(["feedback", "kept", "for", "why", "+/-", "records", "state"], reviews.map(reviewRow));
    if (o.diff) for (const r of reviews) process.stdout.write(`\n--- current (v${r.currentVersion})\n+++ proposed (feedback ${r.feedbackIds[0]})\n${r.diff.text}\n`);
  });

  feedbackOf(procedures.command("apply").argument("<agent>").argument("<feedback>", "a feedback id from `procedures reviews`"))
    .option("--reason <text>", "why (kept with the new version)")
    .option("--force", "apply even though the instructions changed after the proposal (undoes those changes)")
    .description("apply a proposal kept for review, as a new version")
    .action(async (agent: string, feedbackId: string, o: { user?: string; reason?: string; force?: boolean }, cmd: Command) => {
      const change = await withStore(globals(cmd), (store) =>
        runAsActor({ source: "cli" }, () =>
          applyReview(store, { agentId: agent, feedbackId, ...(o.user === undefined ? {} : { userId: o.user }) }, { ...(o.reason === undefined ? {} : { reason: o.reason }), ...(o.force ? { force: true } : {}) }),
        ),
      );
      if (globals(cmd).json) return printJson(change);
      printFields([
        ["applied", `feedback ${change.feedbackIds.join(", ")}`],
        ["version", `${change.record.version}${change.changed ? "" : " (it was already current)"}`],
        ["diff", `+${change.diff.added}/-${change.diff.removed}`],
      ]);
    });

  feedbackOf(procedures.command("dismiss").argument("<agent>").argument("<feedback>", "a feedback id from `procedures reviews`"))
    .option("--reason <text>", "why (recorded on the feedback)")
    .description("dismiss a proposal kept for review; the instructions stay as they are")
    .action(async (agent: string, feedbackId: string, o: { user?: string; reason?: string }, cmd: Command) => {
      const done = await withStore(globals(cmd), (store) =>
        runAsActor({ source: "cli" }, () => dismissReview(store, { agentId: agent, feedbackId, ...(o.user === undefined ? {} : { userId: o.user }) }, o.reason === undefined ? {} : { reason: o.reason })),
      );
      if (globals(cmd).json) return printJson(done);
      process.stdout.write(`dismissed: feedback ${done.feedbackIds.join(", ")}\n`);
    });
}
