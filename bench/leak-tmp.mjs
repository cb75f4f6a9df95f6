import { startMteja, load } from "./targets.mjs";
const m = await startMteja();
const url = `${m.base}/api/v1/auth/me`;
const mem = () => { global.gc(); global.gc(); const u = process.memoryUsage(); return `rss ${(u.rss/2**20).toFixed(0)} heapUsed ${(u.heapUsed/2**20).toFixed(1)} heapTotal ${(u.heapTotal/2**20).toFixed(0)} external ${(u.external/2**20).toFixed(1)} ab ${(u.arrayBuffers/2**20).toFixed(1)}`; };
console.log("start", mem());
for (let i = 0; i < 4; i++) { await load(url, m.headers, { connections: 50, seconds: 5 }); console.log(i, mem()); }
const { writeHeapSnapshot } = await import("node:v8");
if (process.argv[2]) console.log(writeHeapSnapshot(process.argv[2]));
await m.close();
