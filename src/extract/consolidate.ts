import { z } from "zod";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { underlyingStore } from "../scope/resolve-store.js";
import type { MemorySearchOptions } from "../store/memory-store-base.js";
import { CONSOLIDATION_PROMPT } from "./prompts.js";
import { asList, parseJsonFromReply } from "./parse.js";
import { factKey } from "./messages.js";
import type { PromptPair } from "./model-call.js";

/** An existing memory close to one of the new facts. */
export interface Neighbour {
  /** Short id shown to the model (`m1`, `m2`…), so it never has to copy a hash. */
  id: string;
  key: string;
  text: string;
  /** Best similarity score to any of the new facts, when the store ranks. */
  score?: number;
  /** The new facts (by index) this memory is close to, with its score for each. */
  near: Map<number, number | undefined>;
}

/** One decision of the consolidation call. */
export interface Decision {
  /** Index of the new fact this decision is about, when given. */
  fact?: number;
  action: "ADD" | "UPDATE" | "DELETE" | "NONE";
  /** Existing memory id (`m2`), for UPDATE / DELETE / NONE. */
  id?: string;
  text?: string;
}

/** A write to apply. */
export type WriteOp =
  | { kind: "put"; key: string; text: string; previousKey?: string; previousText?: string; profile?: Record<string, unknown> }
  | { kind: "delete"; key: string; text: string };

/** Zod schema for structured output of the consolidation call. */
export const DecisionsSchema = z.object({
  decisions: z
    .array(
      z.object({
        fact: z.string().nullable().describe("the new fact's id, e.g. f1"),
        action: z.enum(["ADD", "UPDATE", "DELETE", "NONE"]).describe("what to do"),
        id: z.string().nullable().describe("the existing memory's id (m1, m2…) for UPDATE, DELETE or NONE"),
        text: z.string().nullable().describe("the memory text to store, for ADD and UPDATE"),
      }),
    )
    .describe("one decision per new fact, plus any deletions"),
});

/** Reads items in exactly `namespace` that look like text memories (not profiles, not other scopes). */
export async function findNeighbours(
  store: BaseStore,
  namespace: readonly string[],
  facts: readonly string[],
  limit: number,
  excludeKeys: ReadonlySet<string>,
): Promise<Neighbour[]> {
  const byKey = new Map<string, Neighbour>();
  const ns = JSON.stringify(namespace);
  for (let i = 0; i < facts.length; i++) {
    // The fact itself is the query: plain cosines (no question adapter), so the duplicate rule's threshold means what it says.
    const search: MemorySearchOptions = { query: facts[i], limit, queryAdapter: false };
    const hits = await underlyingStore(store).search([...namespace], search);
    for (const hit of hits) {
      if (JSON.stringify(hit.namespace) !== ns || excludeKeys.has(hit.key)) continue;
      const text = (hit.value as { text?: unknown }).text;
      if (typeof text !== "string" || (hit.value as { profile?: unknown }).profile !== undefined) continue;
      let n = byKey.get(hit.key);
      if (!n) byKey.set(hit.key, (n = { id: `m${byKey.size + 1}`, key: hit.key, text, near: new Map() }));
      n.near.set(i, hit.score);
      if (hit.score !== undefined && (n.score === undefined || hit.score > n.score)) n.score = hit.score;
    }
  }
  return [...byKey.values()];
}

/** The consolidation prompt for a batch of new facts and their neighbours. */
export function consolidationPrompt(facts: readonly string[], neighbours: readonly Neighbour[], options: { enableUpdates: boolean; enableDeletes: boolean }): PromptPair {
  const limits: string[] = [];
  if (!options.enableUpdates) limits.push("UPDATE is disabled: use ADD or NONE instead.");
  if (!options.enableDeletes) limits.push("DELETE is disabled: never use it.");
  return {
    system: [CONSOLIDATION_PROMPT, ...limits].join("\n"),
    user:
      `EXISTING memories:\n${neighbours.map((n) => `${n.id}: ${n.text}`).join("\n")}\n\n` +
      `NEW facts:\n${facts.map((f, i) => `f${i + 1}: ${f}`).join("\n")}`,
  };
}

function factIndex(raw: unknown, count: number): number | undefined {
  if (typeof raw === "number" && Number.isInteger(raw)) return raw >= 1 && raw <= count ? raw - 1 : undefined;
  if (typeof raw !== "string") return undefined;
  const m = /^\s*f?(\d+)\s*$/i.exec(raw);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n >= 1 && n <= count ? n - 1 : undefined;
}

/** Leniently reads decisions from structured output or a parsed JSON reply; undefined when none are usable. */
export function readDecisions(value: unknown, factCount: number): Decision[] | undefined {
  const list = asList(value);
  if (!list) return undefined;
  const out: Decision[] = [];
  for (const item of list) {
    if (!item || typeof item !== "object") continue;
    const o = item as Record<string, unknown>;
    const action = String(o.action ?? o.event ?? o.operation ?? o.type ?? "").toUpperCase();
    if (action !== "ADD" && action !== "UPDATE" && action !== "DELETE" && action !== "NONE") continue;
    const id = o.id ?? o.memory_id ?? o.existing;
    const text = o.text ?? o.memory ?? o.content;
    out.push({
      action,
      fact: factIndex(o.fact ?? o.fact_id ?? o.new, factCount),
      id: typeof id === "string" && id.trim() ? id.trim() : typeof id === "number" ? `m${id}` : undefined,
      text: typeof text === "string" && text.trim() ? text.trim() : undefined,
    });
  }
  return list.length > 0 && out.length === 0 ? undefined : out;
}

/** Parses decisions from a plain-text reply. */
export function parseDecisionsReply(reply: string, factCount: number, maxChars?: number): Decision[] | undefined {
  return readDecisions(parseJsonFromReply(reply, "array", maxChars), factCount);
}

/**
 * The no-consolidation rule for one fact: the same text updates in place;
 * a neighbour at or above `threshold` (cosine) is replaced; otherwise add.
 */
export function duplicateRule(fact: string, index: number, neighbours: readonly Neighbour[], threshold: number): WriteOp {
  const key = factKey(fact);
  const same = neighbours.find((n) => n.key === key);
  if (same) return { kind: "put", key, text: fact, previousKey: key, previousText: same.text };
  let best: Neighbour | undefined;
  let bestScore = -Infinity;
  for (const n of neighbours) {
    const s = n.near.get(index);
    if (s !== undefined && s >= threshold && s > bestScore) {
      best = n;
      bestScore = s;
    }
  }
  if (best) return { kind: "put", key, text: fact, previousKey: best.key, previousText: best.text };
  return { kind: "put", key, text: fact };
}

/**
 * Turns the model's decisions into writes. Facts the model left out fall back
 * to {@link duplicateRule}, so nothing extracted is silently dropped.
 */
export function planFromDecisions(
  facts: readonly string[],
  neighbours: readonly Neighbour[],
  decisions: readonly Decision[],
  options: { enableUpdates: boolean; enableDeletes: boolean; threshold: number },
): WriteOp[] {
  const byId = new Map(neighbours.map((n) => [n.id, n]));
  const decided = new Set<number>();
  const touched = new Set<string>();
  const ops: WriteOp[] = [];
  const norm = facts.map((f) => factKey(f));
  const anyIndexed = decisions.some((d) => d.fact !== undefined);
  for (const raw of decisions) {
    const d = { ...raw };
    if (d.fact === undefined && d.text) {
      const at = norm.indexOf(factKey(d.text));
      if (at >= 0) d.fact = at;
    }
    if (d.fact !== undefined) {
      if (decided.has(d.fact) && d.action !== "DELETE") continue;
      decided.add(d.fact);
    }
    const target = d.id ? byId.get(d.id) : undefined;
    const text = d.text ?? (d.fact !== undefined ? facts[d.fact] : undefined);
    if (d.action === "NONE") continue;
    if (d.action === "DELETE") {
      if (options.enableDeletes && target && !touched.has(target.key)) {
        touched.add(target.key);
        ops.push({ kind: "delete", key: target.key, text: target.text });
      }
      continue;
    }
    if (!text) continue;
    if (d.action === "UPDATE" && options.enableUpdates && target && !touched.has(target.key)) {
      touched.add(target.key);
      ops.push({ kind: "put", key: factKey(text), text, previousKey: target.key, previousText: target.text });
      continue;
    }
    // ADD, or an UPDATE that cannot be applied: store the text as a new memory.
    ops.push({ kind: "put", key: factKey(text), text });
  }
  // Facts the model skipped fall back to the duplicate rule, unless it never
  // said which decision was about which fact (then its list is taken as is).
  if (!anyIndexed && decisions.length > 0) return ops;
  facts.forEach((fact, i) => {
    if (!decided.has(i)) ops.push(duplicateRule(fact, i, neighbours, options.threshold));
  });
  return ops;
}
