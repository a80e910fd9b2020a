import { tokenize } from "../embeddings/tokenize.js";
import type { ScoredEpisode } from "./select.js";

/** How many of the best-scored turns lend their names to a second hop. */
export const BRIDGE_SOURCES = 20;

/** A name is a bridge only when at most this many candidates say it (a name in many turns links nothing). */
export const BRIDGE_MAX_HOLDERS = 3;

/** Words written with a capital letter that do not open the turn or a sentence: names, places, titles. */
const NAME = /(?<!(?:^|[.!?:\n])[\s"'“‘(]*)(?<![\p{L}\p{N}])\p{Lu}[\p{L}'’-]*\p{Ll}/gu;

/** The index terms of the names a turn says (see {@link NAME}). */
export function nameTerms(text: string): Set<string> {
  const names = text.match(NAME);
  return new Set(names ? tokenize(names.join(" ")) : []);
}

/** Indices of the `n` best-scored candidates (ties by first-stage order), best first. */
function best(scored: readonly ScoredEpisode[], n: number): number[] {
  const out: number[] = [];
  const before = (i: number, j: number) => scored[i]!.score > scored[j]!.score || (scored[i]!.score === scored[j]!.score && scored[i]!.order < scored[j]!.order);
  for (let i = 0; i < scored.length; i++) {
    if (out.length === n) {
      if (!before(i, out[n - 1]!)) continue;
      out.pop();
    }
    let at = out.length;
    while (at > 0 && before(i, out[at - 1]!)) at--;
    out.splice(at, 0, i);
  }
  return out;
}

/**
 * Entity bridging, a second hop without a second query: a name in one of the
 * {@link BRIDGE_SOURCES} best turns that the question does not contain
 * ("Callum announced he's off to Singapore", for "what does Priya's brother
 * do?") links it to the other candidates that say the same name ("Callum
 * says the chef job is going really well"). Each of those earns `weight` ×
 * the source's score (the best source, when several link to it) × its own
 * `scale` (the short-turn and speaker factors its own score had). Names in
 * `ignore` (the question's words, the speakers) and names more than
 * {@link BRIDGE_MAX_HOLDERS} candidates say are not bridges. Changes the
 * scores in place.
 */
export function addBridgeCredit(scored: ScoredEpisode[], weight: number, scale: readonly number[], ignore: ReadonlySet<string>): void {
  if (weight <= 0 || scored.length < 2) return;
  const sources = best(scored, BRIDGE_SOURCES);
  const names = new Map<number, Set<string>>();
  const wanted = new Set<string>();
  for (const i of sources) {
    const own = [...nameTerms(scored[i]!.episode.text)].filter((t) => !ignore.has(t));
    names.set(i, new Set(own));
    for (const t of own) wanted.add(t);
  }
  if (wanted.size === 0) return;
  const holders = new Map<string, number[]>();
  scored.forEach((s, j) => {
    for (const t of s.terms) {
      if (!wanted.has(t)) continue;
      const h = holders.get(t);
      if (!h) holders.set(t, [j]);
      else if (h[h.length - 1] !== j) h.push(j);
    }
  });
  const credit = new Map<number, number>();
  for (const i of sources) {
    const from = scored[i]!.score;
    for (const t of names.get(i)!) {
      const h = holders.get(t);
      if (!h || h.length < 2 || h.length > BRIDGE_MAX_HOLDERS) continue;
      for (const j of h) if (j !== i) credit.set(j, Math.max(credit.get(j) ?? 0, weight * from));
    }
  }
  for (const [j, c] of credit) scored[j]!.score += c * scale[j]!;
}
