import type { Embeddings } from "@langchain/core/embeddings";
import { extractFieldTexts } from "../fields.js";
import { embedTexts } from "../hnsw/prepare-batch.js";
import type { PreparedPut } from "../hnsw/store-state.js";
import type { MemoryEntry } from "../../migrate/entry.js";
import type { ItemRow } from "./search.js";
import { everyVector, nsLabels, rowId, type Queryable, type Tables } from "./sql.js";
import { pathsFor, upsert, type VectorTarget } from "./write.js";

interface ExportRow extends ItemRow {
  index_fields: false | string[] | null;
  expires_at: string | null;
  ttl_minutes: number | null;
}

/** Every item in (ns, key) order, page by page (keyset pagination), with vectors when asked. */
export async function* exportRows(db: Queryable, t: Tables, batchSize: number, withVectors: boolean): AsyncIterable<MemoryEntry[]> {
  let after: [string, string] | undefined;
  for (;;) {
    const r = await db.query<ExportRow>(
      `SELECT ns, key, value, index_fields, created_at, updated_at, expires_at, ttl_minutes FROM ${t.items}
       ${after ? "WHERE (ns, key) > ($2, $3)" : ""} ORDER BY ns, key LIMIT $1`,
      after ? [batchSize, after[0], after[1]] : [batchSize],
    );
    if (r.rows.length === 0) return;
    const entries = r.rows.map((row) => {
      const e: MemoryEntry = { namespace: nsLabels(row.ns), key: row.key, value: row.value, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at) };
      if (row.expires_at !== null) e.expiresAt = Number(row.expires_at);
      if (row.ttl_minutes !== null) e.ttl = Number(row.ttl_minutes);
      if (row.index_fields !== null) e.index = row.index_fields;
      return e;
    });
    if (withVectors) {
      const v = await db.query<{ ns: string; key: string; field: string; e: string }>(
        `SELECT ns, key, field, embedding::text AS e FROM ${everyVector(t, (table) => `SELECT * FROM ${table}`)} v
         WHERE (ns, key) IN (SELECT * FROM unnest($1::text[], $2::text[])) ORDER BY ns, key, field`,
        [r.rows.map((x) => x.ns), r.rows.map((x) => x.key)],
      );
      const byId = new Map<string, { field: string; vector: number[] }[]>();
      for (const row of v.rows) {
        const id = rowId(row.ns, row.key);
        if (!byId.has(id)) byId.set(id, []);
        byId.get(id)!.push({ field: row.field, vector: JSON.parse(row.e) as number[] });
      }
      r.rows.forEach((row, i) => (entries[i].vectors = byId.get(rowId(row.ns, row.key)) ?? []));
    }
    yield entries;
    const last = r.rows[r.rows.length - 1];
    after = [last.ns, last.key];
  }
}

/**
 * Upserts entries with their own timestamps and TTLs. Entries without
 * vectors are embedded first (one call), when the store has an index.
 * Returns how many vectors went to the pending table.
 */
export async function importRows(
  db: Queryable,
  t: Tables,
  entries: MemoryEntry[],
  index: { embeddings: Embeddings; dims: number; target: Exclude<VectorTarget, null> } | undefined,
  fields: string[] | null,
  now: number,
): Promise<number> {
  const puts: PreparedPut[] = entries.map((e) => ({
    namespace: e.namespace,
    key: e.key,
    value: e.value,
    index: e.index,
    expiresAt: e.expiresAt,
    ttl: e.ttl,
    vectors: e.vectors ?? [],
  }));
  if (index) {
    const need = new Map<number, { field: string; text: string }[]>();
    const texts = new Set<string>();
    entries.forEach((e, i) => {
      if (e.vectors) return;
      const fts = extractFieldTexts(e.value, pathsFor(e.index, fields));
      need.set(i, fts);
      for (const f of fts) texts.add(f.text);
    });
    const vectors = await embedTexts(index.embeddings, [...texts], index.dims);
    for (const [i, fts] of need) puts[i].vectors = fts.map((f) => ({ field: f.field, vector: vectors.get(f.text)! }));
  }
  return upsert(db, t, puts, now, fields, index?.target ?? null, { createdAt: entries.map((e) => e.createdAt), updatedAt: entries.map((e) => e.updatedAt) });
}
