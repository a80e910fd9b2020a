/**
 * One process of test/postgres/multi-process.test.ts ("with vectors"), its
 * own PostgresMemoryStore (pool of 4) on the real server with pgvector and
 * the FakeEmbeddings TEST DOUBLE (bag of words, deterministic: every process
 * embeds a text to the same vector).
 *
 * - `writer <id> <batches>`: batch b puts `b-0`…`b-7` in ["users", "w<id>"]
 *   with texts "writer <id> batch <b> item <i> <word>", 4 batches in flight;
 *   prints `ack <b>` per acknowledged batch.
 * - `reader <id> <ms>`: searches with queries for the whole time, all users
 *   and one writer's user, and checks each hit: inside the prefix, and its
 *   score is the cosine between the query and its own text (its vector was
 *   written with the value, in the same transaction, indexed or still pending: never a stale or
 *   missing one; retrieval "vector", so scores are raw cosines). Prints
 *   `searches <n>` and `bad <reason>` per failed check.
 */
import { PostgresMemoryStore } from "../../src/store/postgres/index.js";
import { FakeEmbeddings } from "../helpers/fake-embeddings.js";

const [url, schema, role, idArg, countArg] = process.argv.slice(2);
const id = Number(idArg);
const DIMS = 64;
const WORDS = ["apple", "river", "mountain", "violin", "lantern", "harbor", "meadow", "comet"];
const embeddings = new FakeEmbeddings({ dims: DIMS });
const store = new PostgresMemoryStore({ connectionString: url, schema, poolConfig: { max: 4 }, maxRetries: 50, retrieval: "vector", index: { dims: DIMS, embeddings, fields: ["text"] } });

const cosine = (a: number[], b: number[]) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (dot += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return dot / Math.sqrt(na * nb);
};

async function writer(batches: number) {
  let next = 0;
  const lane = async () => {
    while (next < batches) {
      const b = next++;
      const ops = Array.from({ length: 8 }, (_, i) => ({ namespace: ["users", `w${id}`], key: `${b}-${i}`, value: { text: `writer ${id} batch ${b} item ${i} ${WORDS[(b + i) % WORDS.length]}`, b } }));
      await store.batch(ops);
      process.stdout.write(`ack ${b}\n`);
    }
  };
  await Promise.all([lane(), lane(), lane(), lane()]);
}

async function reader(ms: number) {
  const end = Date.now() + ms;
  let n = 0;
  while (Date.now() < end) {
    const word = WORDS[n % WORDS.length];
    const prefix = n % 2 ? ["users"] : ["users", `w${1 + (n % 3)}`];
    const query = `${word} batch`;
    const q = await embeddings.embedQuery(query);
    const hits = await store.search(prefix, { query, limit: 10 });
    for (const h of hits) {
      if (prefix.some((l, i) => h.namespace[i] !== l)) process.stdout.write(`bad leak ${JSON.stringify(h.namespace)} under ${JSON.stringify(prefix)}\n`);
      const expected = cosine(q, await embeddings.embedQuery(String(h.value.text)));
      if (h.score === undefined || Math.abs(h.score - expected) > 1e-4) process.stdout.write(`bad score ${h.key} ${h.score} expected ${expected}\n`);
    }
    n++;
  }
  process.stdout.write(`searches ${n}\n`);
}

await store.setup();
if (role === "writer") await writer(Number(countArg));
else await reader(Number(countArg));
await store.close();
process.stdout.write("done\n");
