/**
 * Attack counters for the server/network half of test:security. Each test
 * file counts what it tried and what held, by attack class, and writes its
 * tally to bench/results/security-counts/<file>.json when it ends (one file
 * per test file, so parallel workers never write the same file).
 */
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

export interface Tally {
  /** Counts one attempt; `held` false means the attack got through. Returns `held`. */
  count(attack: string, held: boolean, detail?: string): boolean;
  /** Attacks that got through, with what happened. */
  readonly breaches: string[];
  write(): void;
}

export function tally(file: string): Tally {
  const counts: Record<string, { tried: number; held: number }> = {};
  const breaches: string[] = [];
  return {
    breaches,
    count(attack, held, detail) {
      const c = (counts[attack] ??= { tried: 0, held: 0 });
      c.tried++;
      if (held) c.held++;
      else breaches.push(`${attack}: ${detail ?? "(no detail)"}`);
      return held;
    },
    write() {
      const dir = path.join(root, "bench/results/security-counts");
      fs.mkdirSync(dir, { recursive: true });
      const total = Object.values(counts).reduce((a, c) => ({ tried: a.tried + c.tried, held: a.held + c.held }), { tried: 0, held: 0 });
      const out = { file: `test/security/${file}`, date: new Date().toISOString(), total, attacks: counts };
      fs.writeFileSync(path.join(dir, file.replace(/\.test\.ts$/, ".json")), JSON.stringify(out, null, 2) + "\n");
    },
  };
}
