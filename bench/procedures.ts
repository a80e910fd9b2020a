/**
 * Procedural memory: does learning KEEP what it learned? Scenarios that can
 * fail (bench/procedures-scenarios.ts): six rules taught one per round that
 * every later rewrite must keep; contradictory and positive feedback; a
 * noisy optimizer model that sometimes drops a rule or answers with no JSON;
 * feedback aimed at one of three named prompts (MultiPromptOptimizer).
 *
 * Per scenario and configuration it reports: rules kept at the end (checked
 * in the instructions by meaning, not by the correction's words), rules a
 * rewrite dropped (regressions applied), rewrites the `maxRemovedLines`
 * guard caught and had redone, feedback lost (records neither learned,
 * kept pending nor kept for review: must be 0), rules in the wrong prompt,
 * and optimizer model calls and prompt characters per round.
 *
 * Models: by default the optimizer is `scriptedOptimizer`, a scripted TEST
 * DOUBLE (deterministic, seeded noise). With `-- --real` and OPENAI_API_KEY
 * set, the same scenarios run against a real chat model (`OPENAI_MODEL`,
 * default gpt-4o-mini); without a key that mode is skipped and says why.
 * Store: HNSWStore on a temp dir. Run: npm run bench:procedures [-- --real]
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { listFeedback, recordFeedback } from "../src/procedures/feedback.js";
import { MultiPromptOptimizer } from "../src/procedures/multi-prompt.js";
import { ProcedureOptimizer } from "../src/procedures/optimizer.js";
import { getProcedure } from "../src/procedures/store.js";
import type { OptimizerCost } from "../src/procedures/cost.js";
import type { ProcedureLimits } from "../src/procedures/limits.js";
import type { OptimizerStrategy } from "../src/procedures/strategies.js";
import { HNSWStore } from "../src/store/hnsw/hnsw-store.js";
import { ScriptedChatModel } from "../test/helpers/scripted-chat-model.js";
import { SCENARIOS, scriptedOptimizer, type Rule, type Scenario } from "./procedures-scenarios.js";

interface Config {
  label: string;
  strategy: OptimizerStrategy;
  limits: ProcedureLimits;
}

const CONFIGS: Config[] = [
  { label: "metaprompt, no guard", strategy: "metaprompt", limits: {} },
  { label: "metaprompt, maxRemovedLines 0", strategy: "metaprompt", limits: { maxRemovedLines: 0 } },
  { label: "gradient, maxRemovedLines 0", strategy: "gradient", limits: { maxRemovedLines: 0 } },
];
const AGENT = "support-bot";
const USER = "ann";
/** Runs after the last round with no new feedback, so feedback kept pending by an unparseable reply is learned. */
const DRAIN_RUNS = 3;

const conversation = (question: string) => [
  { role: "user", content: question },
  { role: "assistant", content: "The review moved to 05/12/2026. Bring the SLA report; ETA for the room is TBD." },
];

interface Outcome {
  scenario: string;
  config: string;
  model: string;
  rulesExpected: number;
  rulesKept: number;
  regressionsApplied: number;
  regressionsCaught: number;
  feedbackLost: number;
  feedbackPending: number;
  feedbackForReview: number;
  misplaced: number;
  learningRuns: number;
  callsPerRound: number;
  promptCharsPerRound: number;
}

/** The rules that must hold after the first `n` rounds: taught and not reversed by a later taught rule. */
function expected(s: Scenario, n: number): Rule[] {
  const taught = s.rounds.slice(0, n).flatMap((r) => ("teach" in r ? [s.rules.find((x) => x.id === r.teach)!] : []));
  return taught.filter((r) => !taught.some((t) => t.replaces === r.id));
}

async function instructionsByPrompt(store: HNSWStore, s: Scenario): Promise<Map<string, string>> {
  const names = s.prompts?.map((p) => p.name) ?? ["instructions"];
  const out = new Map<string, string>();
  for (const name of names) out.set(name, (await getProcedure(store, { agentId: AGENT, userId: USER, name }))?.instructions ?? "");
  return out;
}

const holds = (r: Rule, texts: Map<string, string>) => (r.prompt ? r.present.test(texts.get(r.prompt) ?? "") : [...texts.values()].some((t) => r.present.test(t)));

async function runScenario(s: Scenario, config: Config, model: BaseChatModel, modelName: string): Promise<Outcome> {
  const dir = await mkdtemp(join(tmpdir(), "bench-procedures-"));
  const store = new HNSWStore({ path: dir });
  const optimizer = new ProcedureOptimizer({ model, strategy: config.strategy, limits: config.limits, logger: { warn: () => {}, error: console.error } });
  const multi = s.prompts ? new MultiPromptOptimizer({ optimizer, prompts: s.prompts.map((p) => ({ name: p.name, whenToUpdate: p.whenToUpdate })) }) : undefined;
  const costs: OptimizerCost[] = [];
  const out: Outcome = {
    scenario: s.name, config: config.label, model: modelName, rulesExpected: 0, rulesKept: 0, regressionsApplied: 0, regressionsCaught: 0,
    feedbackLost: 0, feedbackPending: 0, feedbackForReview: 0, misplaced: 0, learningRuns: 0, callsPerRound: 0, promptCharsPerRound: 0,
  };
  const learn = async () => {
    out.learningRuns++;
    if (multi) {
      const r = await multi.learn(store, { agentId: AGENT, userId: USER });
      if (r.attributionCost) costs.push(r.attributionCost);
      for (const x of Object.values(r.results)) if (x.proposal) costs.push(x.proposal.cost);
      for (const x of Object.values(r.results)) if (x.proposal?.revisedFor === "removes_lines" || x.proposal?.rejected?.reason === "removes_lines") out.regressionsCaught++;
    } else {
      const r = await optimizer.learn(store, { agentId: AGENT, userId: USER });
      if (r.proposal) costs.push(r.proposal.cost);
      if (r.proposal?.revisedFor === "removes_lines" || r.proposal?.rejected?.reason === "removes_lines") out.regressionsCaught++;
    }
  };
  try {
    let before = await instructionsByPrompt(store, s);
    const everHeld = new Set<string>();
    for (let i = 0; i < s.rounds.length + DRAIN_RUNS; i++) {
      const round = s.rounds[i];
      if (round) {
        const rule = "teach" in round ? s.rules.find((r) => r.id === round.teach)! : undefined;
        await recordFeedback(store, {
          agentId: AGENT, userId: USER, threadId: `t${i}`, messages: conversation(`Round ${i + 1}: what changed about the review?`),
          ...(rule ? { score: 0, correction: rule.correction } : { score: 1, comment: (round as { praise: string }).praise }),
        });
      } else if ((await listFeedback(store, { agentId: AGENT, userId: USER })).length === 0) break;
      await learn();
      const after = await instructionsByPrompt(store, s);
      const must = expected(s, Math.min(i + 1, s.rounds.length));
      out.regressionsApplied += must.filter((r) => holds(r, before) && !holds(r, after)).length;
      for (const r of s.rules) if (holds(r, after)) everHeld.add(r.id);
      before = after;
    }
    const must = expected(s, s.rounds.length);
    out.rulesExpected = must.length;
    out.rulesKept = must.filter((r) => holds(r, before)).length;
    out.misplaced = s.prompts ? must.filter((r) => [...before].some(([name, text]) => name !== r.prompt && r.present.test(text))).length : 0;
    const all = await listFeedback(store, { agentId: AGENT, userId: USER, pending: false, limit: 1000 });
    // Lost: a record gone or refused, or a correction marked learned whose rule no version after it ever held.
    const learnedRules = new Set(everHeld);
    const unlearned = all.filter((f) => (f.status === "applied" || f.status === "used") && f.correction && !learnedRules.has(s.rules.find((r) => r.correction === f.correction)!.id));
    const reversed = new Set(s.rules.filter((r) => r.replaces).map((r) => r.replaces!));
    out.feedbackLost = s.rounds.length - all.length + all.filter((f) => f.status === "rejected").length + unlearned.filter((f) => !reversed.has(s.rules.find((r) => r.correction === f.correction)!.id)).length;
    out.feedbackPending = all.filter((f) => f.status === "pending").length;
    out.feedbackForReview = all.filter((f) => f.status === "review").length;
    // Scripted models count calls through the proposals' cost; so do real ones.
    const rounds = s.rounds.length;
    out.callsPerRound = Math.round((costs.reduce((n, c) => n + c.calls, 0) / rounds) * 100) / 100;
    out.promptCharsPerRound = Math.round(costs.reduce((n, c) => n + c.promptChars, 0) / rounds);
    return out;
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function realModel(): Promise<{ model?: BaseChatModel; name: string; skipped?: string }> {
  if (!process.argv.includes("--real")) return { name: "", skipped: "not asked for (run with -- --real)" };
  if (!process.env.OPENAI_API_KEY) return { name: "", skipped: "OPENAI_API_KEY is not set" };
  let mod: typeof import("@langchain/openai");
  try {
    mod = await import("@langchain/openai");
  } catch {
    return { name: "", skipped: "the '@langchain/openai' package is not installed (npm install @langchain/openai)" };
  }
  const name = process.env.OPENAI_MODEL ?? "gpt-4o-mini";
  return { model: new mod.ChatOpenAI({ model: name, temperature: 0 }), name };
}

const results: Outcome[] = [];
const started = new Date().toISOString();
for (const s of SCENARIOS) {
  for (const config of CONFIGS) results.push(await runScenario(s, config, new ScriptedChatModel({ turns: [], fallback: scriptedOptimizer(s) }), "scripted (test double)"));
}
const real = await realModel();
if (real.model) {
  for (const s of SCENARIOS) results.push(await runScenario(s, CONFIGS[1], real.model, real.name));
}
console.table(results.map(({ scenario, config, model, rulesExpected, rulesKept, regressionsApplied, regressionsCaught, feedbackLost, feedbackPending, feedbackForReview, misplaced, callsPerRound, promptCharsPerRound }) => ({
  scenario, config, model, kept: `${rulesKept}/${rulesExpected}`, dropped: regressionsApplied, caught: regressionsCaught, lost: feedbackLost, pending: feedbackPending, review: feedbackForReview, misplaced, "calls/round": callsPerRound, "chars/round": promptCharsPerRound,
})));
console.log(real.skipped ? `real model: skipped (${real.skipped})` : `real model: ${real.name}`);

const machine = { cpus: cpus().length, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version, load1: loadavg()[0] };
console.log(`machine: ${machine.cpus} cpus, load ${machine.load1.toFixed(2)}, ${started}`);
await mkdir(new URL("./results/", import.meta.url), { recursive: true });
await writeFile(new URL("./results/procedures.json", import.meta.url), JSON.stringify({ date: started, machine, realModel: real.skipped ? { skipped: real.skipped } : { model: real.name }, results }, null, 2) + "\n");
if (results.some((r) => r.feedbackLost > 0)) {
  console.error("feedback was lost");
  process.exitCode = 1;
}
