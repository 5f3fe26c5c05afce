// A client that asks and never reads: against a real `ax serve`, a raw
// WebSocket client pauses its socket and sends 1,500 readLogs requests for a big log. Before,
// the server answered every one into its send buffer (90 MB → 502 MB in the probe); now answers
// and events share one send budget per connection and the server stops reading that client's
// requests past it, so its RSS (from /proc/PID/status) stays bounded, another client is served
// meanwhile, and the paused client gets its answers once it reads.
import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { ax } from '../helpers/ax.ts';
import { openDataDirStore, writeFile } from '../helpers/files.ts';
import { serveFixture } from '../helpers/serve.ts';
import { waitFor } from '../helpers/wait-for.ts';

const REQUESTS = 1_500;
let instanceId: number;

/** the resident set of a process, MB */
const rssMb = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

const served = serveFixture('ax-slow-client-');

beforeAll(async () => {
  // 10,000 lines of ~120 characters: one readLogs answer is about 1.7 MB of JSON
  const file = writeFile(
    served.dataDir,
    'big.yaml',
    `workflow: big-log\ntasks:\n  talk:\n    command: 'seq 1 10000 | sed "s/$/ ${'x'.repeat(110)}/"'\n`,
  );
  expect((await ax(['apply', file], { dataDir: served.dataDir })).code).toBe(0);
  const run = await ax(['run', 'big-log', '--wait'], { dataDir: served.dataDir, timeoutMs: 120_000 });
  expect(run.code, run.stderr).toBe(0);
  const store = await openDataDirStore(served.dataDir);
  try {
    const [latest] = await store.listRuns({ workflowName: 'big-log', limit: 1 });
    instanceId = (await store.listInstances(latest?.id as number))[0]?.id as number;
  } finally {
    await store.close();
  }
}, 180_000);

describe('a client that never reads', () => {
  it('holds the server to its send budget: RSS stays bounded, others are served, the client gets its answers once it reads', async () => {
    const before = rssMb(served.serve.pid);
    const raw = new WebSocket(`ws://127.0.0.1:${served.serve.port}/api`, {
      headers: { authorization: `Bearer ${apiToken(served.dataDir)}` },
    });
    await new Promise<void>((resolve, reject) => {
      raw.once('open', () => resolve());
      raw.once('error', reject);
    });
    let answers = 0;
    raw.on('message', () => answers++);
    raw.pause(); // its socket reads nothing from here on
    for (let i = 1; i <= REQUESTS; i++)
      raw.send(JSON.stringify({ id: i, method: 'readLogs', params: [instanceId, 0, 10_000] }));

    // A figure over a fixed window, not a wait: the server's peak RSS while the client reads nothing.
    let peak = before;
    const normal = await connectApi(`ws://127.0.0.1:${served.serve.port}/api`, apiToken(served.dataDir));
    const infoTimes: number[] = [];
    const until = Date.now() + 8_000;
    while (Date.now() < until) {
      const t0 = Date.now();
      expect((await normal.engineInfo()).mode).toBe('solo');
      infoTimes.push(Date.now() - t0);
      peak = Math.max(peak, rssMb(served.serve.pid));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const growth = peak - before;
    console.log(
      `ax serve RSS: ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (+${growth.toFixed(0)} MB) while ${REQUESTS} readLogs (~1.7 MB each) went unread; engineInfo meanwhile: max ${Math.max(...infoTimes)} ms over ${infoTimes.length} calls`,
    );
    expect(growth).toBeLessThan(100);
    expect(answers).toBe(0);

    // It reads again: the server resumes reading its requests and answers them in turn.
    raw.resume();
    await waitFor(() => answers >= 40, {
      timeoutMs: 60_000,
      intervalMs: 100,
      message: 'answers to arrive once the client reads',
    });
    raw.terminate();
    expect(await normal.engineInfo()).toMatchObject({ mode: 'solo' });
    normal.close();
  }, 120_000);
});
