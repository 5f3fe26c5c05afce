// One of the processes bench/team-load.ts starts to measure the raw spawn rate of several Node
// processes at once (as several workers spawn): `node --import tsx bench/spawn-child.ts SHELL
// TOTAL CONCURRENCY`. It prints "ready", waits for a line on stdin (so that all of them start
// together, after tsx has loaded), runs bench/solo-throughput.ts's rawSpawnRate, and prints one
// JSON line: {"start": epoch ms, "end": epoch ms, "total": N}.
import readline from 'node:readline';
import { rawSpawnRate } from './solo-throughput.ts';

const [shell, totalArg, concurrencyArg] = process.argv.slice(2);
if (!shell || !totalArg || !concurrencyArg) throw new Error('usage: spawn-child.ts SHELL TOTAL CONCURRENCY');
const total = Number(totalArg);
console.log('ready');
const rl = readline.createInterface({ input: process.stdin });
await new Promise<void>((resolve) => rl.once('line', () => resolve()));
rl.close();
const start = Date.now();
await rawSpawnRate(shell, total, Number(concurrencyArg));
console.log(JSON.stringify({ start, end: Date.now(), total }));
