// `ax serve` serves GET /metrics on its API port (127.0.0.1) and says so; a run started through
// the CLI moves its counters; --metrics-address adds a listener that serves only /metrics, and is
// refused beyond loopback until DATA_DIR/metrics-token holds a secret.
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ax, cliSandbox } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { type ServeProcess, startServe } from '../helpers/serve.ts';
import { scrape } from '../helpers/prometheus.ts';

const box = cliSandbox('ax-cli-metrics-');
// each test its own ROOT and data dir under the sandbox: a counter must start at zero
let root: string;
let dataDir: string;
let serve: ServeProcess | undefined;
const opts = () => ({ dataDir, cwd: root });

beforeEach(() => {
  serve = undefined;
  root = fs.mkdtempSync(path.join(box.root, 'test-'));
  dataDir = path.join(root, 'data');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
});

// POSIX shells: the task is an sh command.
describe.skipIf(process.platform === 'win32')('ax serve: GET /metrics', () => {
  it('is served on the API port, said at start, and its counters move as runs complete', async () => {
    writeFile(root, 'hello.yaml', 'workflow: hello\ntasks:\n  greet:\n    command: echo hello\n');
    expect((await ax(['apply', './hello.yaml'], opts())).code).toBe(0);
    serve = await startServe(opts());
    const url = `http://127.0.0.1:${serve.port}/metrics`;
    await serve.waitForLine(/^metrics: /, 5000);
    expect(serve.stdout).toContain(
      `metrics: GET ${url} (Prometheus text format; no token: put one in ${path.join(dataDir, 'metrics-token')} to require it)`,
    );
    const before = await scrape(url);
    expect(before.value('ax_runs_finished_total', { state: 'SUCCESS' })).toBe(0);
    const run = await ax(['run', 'hello', '--wait'], opts());
    expect(run.code, run.stderr).toBe(0);
    const after = await scrape(url);
    expect(after.value('ax_runs_finished_total', { state: 'SUCCESS' })).toBe(1);
    expect(after.value('ax_instances_finished_total', { state: 'SUCCESS' })).toBe(1);
    expect(after.count('ax_run_duration_seconds', { state: 'SUCCESS' })).toBe(1);
    expect(after.count('ax_dispatch_latency_seconds')).toBe(1);
    expect(after.value('ax_log_lines_written_total')).toBeGreaterThanOrEqual(1);
    expect(after.value('ax_workers', { status: 'online' })).toBe(1);
    expect(after.families.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('--metrics-address beyond loopback is refused without a metrics token, and serves only /metrics with one', async () => {
    const refused = await ax(['serve', '--metrics-address', '0.0.0.0:0'], { ...opts(), timeoutMs: 30_000 });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `--metrics-address 0.0.0.0:0 lets other machines scrape this node: put a secret of at least 16 characters in ${path.join(dataDir, 'metrics-token')} first`,
    );
    const bad = await ax(['serve', '--metrics-address', 'nohost'], opts());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--metrics-address must be HOST:PORT');

    const token = 'scrape-secret-0123456789';
    fs.writeFileSync(path.join(dataDir, 'metrics-token'), `${token}\n`, { mode: 0o600 });
    serve = await startServe(opts(), ['--metrics-address', '0.0.0.0:0']);
    const line = await serve.waitForLine(/^metrics also on /, 5000);
    const port = Number(/:(\d+)\/metrics/.exec(line.text)?.[1]);
    expect(port).toBeGreaterThan(0);
    const url = `http://127.0.0.1:${port}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await scrape(url, token)).value('ax_store_up')).toBe(1);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
    // the API port asks for the token too
    expect((await fetch(`http://127.0.0.1:${serve.port}/metrics`)).status).toBe(401);
  });
});
