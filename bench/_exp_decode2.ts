import fs from "node:fs";
const file = "/tmp/fmtbench/v3/items-6.jsonl";
const mode = process.argv[2] ?? "a";
const buf = await fs.promises.readFile(file);
const t1 = performance.now();
class It { expiresAt?: number; ttl?: number; index?: unknown; gid?: number; parsed?: unknown;
  constructor(public id: string, public namespace: string[], public key: string, public src: Buffer, public vs: number, public ve: number, public createdAt: number, public updatedAt: number, public vectors: {label:number, field:string}[]) {} }
class It2 { expiresAt?: number; ttl?: number; index?: unknown; gid?: number; parsed?: unknown; private _id?: string;
  constructor(public namespace: string[], public nsKey: string, public key: string, public src: Buffer, public vs: number, public ve: number, public createdAt: number, public updatedAt: number, public vectors: {label:number, field:string}[]) {}
  get id() { return this._id ??= `${this.nsKey}\n${this.key}`; } }
const items: unknown[] = [];
const map = new Map<string, unknown>();
let pos = 0; let ns: string[] = []; let nsKey = "";
const end = buf.length;
while (pos < end) {
  const nl = buf.indexOf(10, pos);
  const lineEnd = nl < 0 ? end : nl;
  const tab = buf.indexOf(9, pos);
  if (tab < 0 || tab > lineEnd) { pos = lineEnd + 1; continue; }
  const head = JSON.parse(buf.toString("utf8", pos, tab));
  if (head[0] !== 0) { ns = head[0]; nsKey = ns.join("\u0000"); }
  const vec = head[7];
  if (mode === "a") {
    const vectors = [];
    for (let j = 0; j < vec.length; j += 2) vectors.push({ label: vec[j], field: vec[j + 1] });
    const it = new It(`${nsKey}\n${head[1]}`, ns, head[1], buf, tab + 1, lineEnd, head[2], head[3], vectors);
    items.push(it); map.set(it.id, it);
  } else if (mode === "b") {
    const vectors = [];
    for (let j = 0; j < vec.length; j += 2) vectors.push({ label: vec[j], field: vec[j + 1] });
    const it = new It2(ns, nsKey, head[1], buf, tab + 1, lineEnd, head[2], head[3], vectors);
    items.push(it); map.set(head[1], it);
  } else if (mode === "c") {
    const it = new It2(ns, nsKey, head[1], buf, tab + 1, lineEnd, head[2], head[3], undefined as never);
    items.push(it); map.set(head[1], it);
  } else if (mode === "d") {
    items.push(head); 
  } else if (mode === "e") {
    // no header parse at all
    items.push(tab);
  }
  pos = lineEnd + 1;
}
const t2 = performance.now();
console.log(mode, "decode", (t2 - t1).toFixed(0), items.length);
