// A small plain-Node process (no tsx, so no loader thread and a small heap: fork cost grows
// with the forking process's memory) that bench/peer.ts starts to measure the references that
// `ax` is compared with. Both modes spawn exactly as the engine's launcher does: SHELL -c true,
// detached, stdin ignored, stdout and stderr piped and read, done at 'close'.
//
//   raw SHELL TOTAL CONCURRENCY
//       prints "ready", waits for a line on stdin, spawns TOTAL times, CONCURRENCY at a time, and
//       prints one JSON line {"start": epoch ms, "end": epoch ms, "total": N}
//   bullmq SHELL REDIS_URL PREFIX QUEUE CONCURRENCY
//       a BullMQ worker whose job is that spawn; prints "ready" once connected, starts taking
//       jobs at the first line on stdin, closes (finishing its jobs) when stdin ends
import readline from 'node:readline';
import { spawnMany, spawnTrue } from './raw-spawn.mjs';

const input = readline.createInterface({ input: process.stdin });
const lines = input[Symbol.asyncIterator]();
const [mode, shell, ...rest] = process.argv.slice(2);

if (mode === 'raw') {
  const [total, concurrency] = rest.map(Number);
  console.log('ready');
  await lines.next();
  const start = Date.now();
  await spawnMany(shell, total, concurrency);
  console.log(JSON.stringify({ start, end: Date.now(), total }));
  input.close();
} else if (mode === 'bullmq') {
  const [redisUrl, prefix, queue, concurrency] = rest;
  const { Worker } = await import('bullmq');
  const url = new URL(redisUrl);
  const worker = new Worker(queue, () => spawnTrue(shell), {
    connection: { host: url.hostname, port: Number(url.port || 6379) },
    prefix,
    concurrency: Number(concurrency),
    autorun: false,
  });
  worker.on('error', (err) => console.error(`bullmq worker: ${err.message}`));
  await worker.waitUntilReady();
  console.log('ready');
  await lines.next();
  const running = worker.run();
  // stdin ends: the benchmark is done with this worker
  for (let line = await lines.next(); !line.done; line = await lines.next());
  await worker.close();
  await running;
} else {
  throw new Error(
    'usage: peer-child.mjs raw SHELL TOTAL CONCURRENCY | bullmq SHELL REDIS_URL PREFIX QUEUE CONCURRENCY',
  );
}
