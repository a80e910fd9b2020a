import fs from "node:fs";
const file = "/tmp/fmtbench/v3/items-6.jsonl";
const mode = process.argv[2] ?? "a";
const buf = await fs.promises.readFile(file);
const t0 = performance.now();
const text = buf.toString("utf8");
const t1 = performance.now();
class It { expiresAt?: number; ttl?: number; index?: unknown; gid?: number; parsed?: unknown;
  constructor(public id: string, public namespace: string[], public key: string, public src: string, public vs: number, public ve: number, public createdAt: number, public updatedAt: number, public vectors: {label:number, field:string}[]) {} }
const items: It[] = [];
let ns: string[] = []; let nsKey = "";
const end = text.length;
// fast header parser state
let p = 0;
function num(s: string): number { // parses a JSON number or null at p; returns NaN for null
  const c = s.charCodeAt(p);
  if (c === 110) { p += 4; return NaN; } // null
  let q = p; 
  while (q < s.length) { const d = s.charCodeAt(q); if (d === 44 || d === 93) break; q++; }
  const v = +s.slice(p, q); p = q; return v;
}
function str(s: string): string {
  // p at opening quote
  const q = s.indexOf('"', p + 1);
  const raw = s.slice(p + 1, q);
  if (raw.indexOf("\\") === -1) { p = q + 1; return raw; }
  // escaped: find the real end
  let r = p + 1;
  for (;;) { const c = s.charCodeAt(r); if (c === 92) r += 2; else if (c === 34) break; else r++; }
  const v = JSON.parse(s.slice(p, r + 1)); p = r + 1; return v;
}
let pos = 0;
while (pos < end) {
  let nl = text.indexOf("\n", pos); if (nl < 0) nl = end;
  const tab = text.indexOf("\t", pos);
  if (tab < 0 || tab > nl) { pos = nl + 1; continue; }
  if (mode === "json") {
    const head = JSON.parse(text.slice(pos, tab));
    if (head[0] !== 0) { ns = head[0]; nsKey = ns.join("\u0000"); }
    const vec = head[7]; const vectors = [];
    for (let j = 0; j < vec.length; j += 2) vectors.push({ label: vec[j], field: vec[j + 1] });
    items.push(new It(`${nsKey}\n${head[1]}`, ns, head[1], text, tab + 1, nl, head[2], head[3], vectors));
  } else {
    p = pos + 1;
    if (text.charCodeAt(p) === 48) p += 1; else { // ns array: JSON.parse its segment
      const close = text.indexOf("]", p); ns = JSON.parse(text.slice(p, close + 1)); nsKey = ns.join("\u0000"); p = close + 1; }
    p++; // comma
    const key = str(text); p++;
    const createdAt = num(text); p++;
    const updatedAt = num(text); p++;
    const exp = num(text); p++;
    const ttl = num(text); p++;
    let index: unknown = undefined;
    if (text.charCodeAt(p) === 110) p += 4; else { const close = text.indexOf("]", p); index = JSON.parse(text.slice(p, close+1)); p = close + 1; }
    p++; // comma
    p++; // [
    let vectors: {label:number; field:string}[];
    if (mode === "hand2") {
      vectors = [];
      if (text.charCodeAt(p) !== 93) { const label = num(text); p++; const field = str(text); if (text.charCodeAt(p) === 44) p++; vectors = [{ label, field }]; }
      while (text.charCodeAt(p) !== 93) { const label = num(text); p++; const field = str(text); vectors.push({ label, field }); if (text.charCodeAt(p) === 44) p++; }
    } else {
    vectors = [];
    while (text.charCodeAt(p) !== 93) { const label = num(text); p++; const field = str(text); vectors.push({ label, field }); if (text.charCodeAt(p) === 44) p++; }
    }
    const it = new It(`${nsKey}\n${key}`, ns, key, text, tab + 1, nl, createdAt, updatedAt, vectors);
    if (exp === exp) it.expiresAt = exp; if (ttl === ttl) it.ttl = ttl; if (index !== undefined) it.index = index;
    items.push(it);
  }
  pos = nl + 1;
}
const t2 = performance.now();
console.log(mode, "toString", (t1-t0).toFixed(0), "decode", (t2 - t1).toFixed(0), items.length, items[777].key, items[777].vectors, JSON.parse(items[777].src.slice(items[777].vs, items[777].ve)).text);
