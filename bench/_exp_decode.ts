import fs from "node:fs";
import zlib from "node:zlib";
const file = "/tmp/fmtbench/v3/items-6.jsonl";
const mode = process.argv[2] ?? "v1";
const t0 = performance.now();
const buf = await fs.promises.readFile(file);
zlib.crc32(buf);
const t1 = performance.now();
class It { constructor(public id: string, public ns: string[], public key: string, public src: Buffer, public vs: number, public ve: number, public createdAt: number, public updatedAt: number, public vectors: {label:number, field:string}[]) {} exp?: number; ttl?: number; index?: unknown; gid?: number }
const items: It[] = [];
if (mode === "v1") {
  let pos = 0; let ns: string[] = []; let nsKey = "";
  const end = buf.length;
  while (pos < end) {
    const nl = buf.indexOf(10, pos);
    const lineEnd = nl < 0 ? end : nl;
    const tab = buf.indexOf(9, pos);
    if (tab < 0 || tab > lineEnd) { pos = lineEnd + 1; continue; } // footer
    const head = JSON.parse(buf.toString("utf8", pos, tab));
    if (head[0] !== 0) { ns = head[0]; nsKey = ns.join("\u0000"); }
    const vec = head[7]; const vectors = [];
    for (let j = 0; j < vec.length; j += 2) vectors.push({ label: vec[j], field: vec[j + 1] });
    items.push(new It(`${nsKey}\n${head[1]}`, ns, head[1], buf, tab + 1, lineEnd, head[2], head[3], vectors));
    pos = lineEnd + 1;
  }
} else if (mode === "v2") {
  // one JSON.parse per slice of lines
  let pos = 0; let ns: string[] = []; let nsKey = "";
  const end = buf.length;
  const scratch = Buffer.alloc(1 << 22);
  while (pos < end) {
    let w = 0; scratch[w++] = 91; const spans: number[] = [];
    let n = 0;
    while (pos < end && n < 8192) {
      const nl = buf.indexOf(10, pos); const lineEnd = nl < 0 ? end : nl;
      const tab = buf.indexOf(9, pos);
      if (tab < 0 || tab > lineEnd) { pos = lineEnd + 1; continue; }
      if (n > 0) scratch[w++] = 44;
      w += buf.copy(scratch, w, pos, tab);
      spans.push(tab + 1, lineEnd); n++;
      pos = lineEnd + 1;
    }
    scratch[w++] = 93;
    const heads = JSON.parse(scratch.toString("utf8", 0, w));
    for (let i = 0; i < heads.length; i++) {
      const head = heads[i];
      if (head[0] !== 0) { ns = head[0]; nsKey = ns.join("\u0000"); }
      const vec = head[7]; const vectors = [];
      for (let j = 0; j < vec.length; j += 2) vectors.push({ label: vec[j], field: vec[j + 1] });
      items.push(new It(`${nsKey}\n${head[1]}`, ns, head[1], buf, spans[2*i], spans[2*i+1], head[2], head[3], vectors));
    }
  }
}
const t2 = performance.now();
console.log(mode, "read+crc", (t1 - t0).toFixed(0), "decode", (t2 - t1).toFixed(0), items.length, JSON.parse(items[500].src.toString("utf8", items[500].vs, items[500].ve)).text);
