// Task outputs through a solo engine with real processes: a task writes KEY=VALUE lines (or a
// JSON object) to $AX_OUTPUT; they are stored with its instance (bad lines said in its log, the
// file removed), reach its downstream as AX_OUTPUT_<TASK>_<KEY>, are masked when they hold a
// secret, and reach a downstream in another workflow that waits on `orders.extract`, where a
// same-run upstream of the same name wins.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { SecretsFile } from '../../engine/hosts/node/secrets-file.ts';
import { tempDir } from '../helpers/files.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

const SECRET = 'pw-93b1e7-never-shown';
let t: TestEngine;
let scratch: string;

beforeAll(async () => {
  const dir = tempDir('ax-outputs-engine-');
  new SecretsFile(dir).set('db-password', SECRET, 'test');
  scratch = tempDir('ax-outputs-scratch-');
  t = await startTestEngine({ dir });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const latest = (instances: InstanceRecord[], name: string) =>
  instances.filter((i) => i.taskName === name).at(-1) as InstanceRecord;

// A zone where it is now about noon, so runs made during the test fall on one calendar day there.
const offset = 12 - new Date().getUTCHours();
const NOON_ZONE = offset >= 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
const schedule = `schedule: { cron: "0 0 1 1 *", timezone: ${NOON_ZONE} }`;

// POSIX shell commands.
describe.skipIf(process.platform === 'win32')('engine: task outputs', () => {
  it('an upstream’s KEY=VALUE lines reach its downstream, are stored, bad lines are said, the file goes', async () => {
    const seen = path.join(scratch, 'seen.txt');
    const where = path.join(scratch, 'output-path.txt');
    await t.apply(`
workflow: outputs-chain
tasks:
  extract:
    command: |
      test -f "$AX_OUTPUT" && test ! -s "$AX_OUTPUT" && echo "$AX_OUTPUT" > ${where}
      echo rows=42 >> "$AX_OUTPUT"
      echo 'file=a b.csv' >> "$AX_OUTPUT"
      echo 'not a pair' >> "$AX_OUTPUT"
  load:
    upstream: [extract]
    command: |
      echo "rows=$AX_OUTPUT_EXTRACT_ROWS file=$AX_OUTPUT_EXTRACT_FILE" > ${seen}
      echo '{"loaded": 42, "tables": ["a", "b"], "note": "ok"}' > "$AX_OUTPUT"
`);
    const { run, instances } = await t.runToEnd('outputs-chain');
    expect(run.state).toBe('SUCCESS');
    expect(fs.readFileSync(seen, 'utf8')).toBe('rows=42 file=a b.csv\n');
    const extract = latest(instances, 'extract');
    expect(extract.outputs).toEqual({ rows: '42', file: 'a b.csv' });
    expect(latest(instances, 'load').outputs).toEqual({ loaded: '42', tables: '["a","b"]', note: 'ok' });
    expect((await t.engine.getInstance(extract.id)).outputs).toEqual({ rows: '42', file: 'a b.csv' });
    const log = await t.engine.readLogs(extract.id, 0, 100);
    expect(log.filter((l) => l.stream === 'system').map((l) => l.line)).toEqual([
      expect.stringMatching(/^\$AX_OUTPUT line 3 skipped: not KEY=VALUE.*"not a pair"/),
    ]);
    // The file was made for the attempt and removed after it.
    const file = fs.readFileSync(where, 'utf8').trim();
    expect(file).not.toBe('');
    expect(fs.existsSync(file)).toBe(false);
  });

  it('a failed task’s outputs are kept too', async () => {
    await t.apply(`
workflow: outputs-failed
tasks:
  probe: { command: 'echo reason=disk full >> "$AX_OUTPUT"; exit 3' }
`);
    const { run, instances } = await t.runToEnd('outputs-failed');
    expect(run.state).toBe('FAILED');
    expect(latest(instances, 'probe').outputs).toEqual({ reason: 'disk full' });
  });

  it('masks a secret the task was given in its outputs, in the store and downstream', async () => {
    const seen = path.join(scratch, 'secret-seen.txt');
    await t.apply(`
workflow: outputs-secret
tasks:
  connect:
    command: 'echo "dsn=postgres://app:$DB_PASSWORD@db/x" >> "$AX_OUTPUT"'
    env: { DB_PASSWORD: { secret: db-password } }
  use:
    upstream: [connect]
    command: 'echo "$AX_OUTPUT_CONNECT_DSN" > ${seen}'
`);
    const { run, instances } = await t.runToEnd('outputs-secret');
    expect(run.state).toBe('SUCCESS');
    expect(latest(instances, 'connect').outputs).toEqual({ dsn: 'postgres://***@db/x' });
    expect(fs.readFileSync(seen, 'utf8')).not.toContain(SECRET);
    expect(fs.readFileSync(seen, 'utf8')).toContain('***');
    const files = fs.readdirSync(t.dir).filter((f) => f.startsWith('ax.db'));
    for (const f of files) expect(fs.readFileSync(path.join(t.dir, f)).includes(Buffer.from(SECRET)), f).toBe(false);
  });

  it('a downstream in another workflow sees orders.extract’s outputs; a same-run upstream of that name wins', async () => {
    const seen = path.join(scratch, 'cross-load.txt');
    const seenReport = path.join(scratch, 'cross-report.txt');
    await t.apply(
      `workflow: orders\n${schedule}\ntasks:\n  extract: { command: 'echo rows=7 >> "$AX_OUTPUT"; echo day=today >> "$AX_OUTPUT"' }\n`,
    );
    await t.apply(`
workflow: warehouse
${schedule}
tasks:
  extract: { command: 'echo rows=1 >> "$AX_OUTPUT"' }
  load:
    upstream: [extract, orders.extract]
    command: 'echo "rows=$AX_OUTPUT_EXTRACT_ROWS day=$AX_OUTPUT_EXTRACT_DAY" > ${seen}'
  report:
    upstream: [orders.extract]
    command: 'echo "rows=$AX_OUTPUT_EXTRACT_ROWS" > ${seenReport}'
`);
    const warehouse = await t.engine.runWorkflow('warehouse', { actor: 'test' });
    const orders = await t.runToEnd('orders');
    expect(orders.run.state).toBe('SUCCESS');
    const done = await t.waitRun(warehouse.id);
    expect(done.run.state).toBe('SUCCESS');
    expect(fs.readFileSync(seen, 'utf8')).toBe('rows=1 day=today\n');
    expect(fs.readFileSync(seenReport, 'utf8')).toBe('rows=7\n');
  });
});
