import { RANKING } from "../embeddings/ranking-defaults.js";

/**
 * A search's ranking with replaced memories kept behind their replacements.
 * A memory names the one it replaces by key in `value.supersedes` (the
 * extractor writes it when an update is stored as a new memory and the old
 * one stays; see extract/apply-writes.ts); the two share a namespace.
 *
 * - `"demote"`: a replaced memory ranked above its replacement moves to just
 *   after it;
 * - `"promote"`: a replacement ranked below the memory it replaced moves up
 *   to that memory's place, the replaced one right after it (so a question
 *   that finds the old fact — "where does she live?" finding "Lives in
 *   Lisbon" — is shown the new one first, and "where did she live before?"
 *   still sees the old one next).
 *
 * Everything else keeps its order; chains (a → b → c) are followed; a cycle
 * keeps its order. Every store applies it, as the ranking defaults say.
 */
export function supersededAfterReplacement<T>(
  ranked: readonly T[],
  idOf: (r: T) => string,
  replacedIdOf: (r: T) => string | undefined,
): T[] {
  const mode = RANKING.superseded;
  if (mode === "off" || ranked.length < 2) return ranked as T[];
  const position = new Map<string, number>();
  ranked.forEach((r, i) => position.set(idOf(r), i));
  // replaced id → its replacements in the ranking (ranked after it)
  const replacements = new Map<string, T[]>();
  ranked.forEach((r, i) => {
    const old = replacedIdOf(r);
    const at = old === undefined ? undefined : position.get(old);
    if (at === undefined || at >= i) return;
    const list = replacements.get(old!) ?? [];
    list.push(r);
    replacements.set(old!, list);
  });
  if (replacements.size === 0) return ranked as T[];
  const out: T[] = [];
  const placed = new Set<string>();
  const inProgress = new Set<string>();
  const place = (r: T) => {
    const id = idOf(r);
    if (placed.has(id) || inProgress.has(id)) return;
    inProgress.add(id);
    // promote: the replacements (and theirs) go first
    if (mode === "promote") for (const n of replacements.get(id) ?? []) place(n);
    inProgress.delete(id);
    if (placed.has(id)) return;
    placed.add(id);
    out.push(r);
  };
  if (mode === "promote") {
    for (const r of ranked) place(r);
    return out;
  }
  // demote: a replaced memory waits for its last replacement
  const waiting = new Map<string, T[]>();
  const blockedBy = new Map<string, number>();
  for (const [old, list] of replacements) {
    blockedBy.set(old, list.length);
    for (const n of list) waiting.set(idOf(n), [...(waiting.get(idOf(n)) ?? []), ranked[position.get(old)!]!]);
  }
  const release = (r: T) => {
    place(r);
    for (const old of waiting.get(idOf(r)) ?? []) {
      const left = blockedBy.get(idOf(old))! - 1;
      blockedBy.set(idOf(old), left);
      if (left === 0) release(old);
    }
  };
  for (const r of ranked) if (!blockedBy.get(idOf(r))) release(r);
  for (const r of ranked) place(r);
  return out;
}

/** The key a stored value says it replaces (`value.supersedes`), if it names one. */
export function supersedesKey(value: Record<string, unknown> | undefined): string | undefined {
  const s = value?.supersedes;
  return typeof s === "string" && s !== "" ? s : undefined;
}

/**
 * Scores for a ranking `supersededAfterReplacement` reordered: a replacement
 * ranked ahead of the memory it replaced is reported with that memory's
 * score when it is higher (the question found the pair through the old
 * one). Without this, a promoted replacement of low similarity would cap
 * every score below it (scores never go up down the list) and a
 * `scoreThreshold` would drop them all. Every other score is unchanged.
 */
export function liftReplacementScores<T extends { score?: number }>(
  ranked: readonly T[],
  idOf: (r: T) => string,
  replacedIdOf: (r: T) => string | undefined,
): T[] {
  if (RANKING.superseded !== "promote") return ranked as T[];
  const scoreAt = new Map<string, { score?: number; at: number }>();
  ranked.forEach((r, at) => scoreAt.set(idOf(r), { score: r.score, at }));
  return ranked.map((r, at) => {
    const old = replacedIdOf(r);
    const replaced = old === undefined ? undefined : scoreAt.get(old);
    if (!replaced || replaced.at <= at || replaced.score === undefined) return r;
    return r.score === undefined || replaced.score > r.score ? { ...r, score: replaced.score } : r;
  });
}
