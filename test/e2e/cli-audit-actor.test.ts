// Audit from the connection, not the client: a client of a real `ax serve` holding the API token
// sends actor "webhook from 10.0.0.7"; the audit's actor is exactly the identity the server
// authenticated (the token's holder, user@host), and that text is only the entry's note, in its
// own column; `ax audit` shows both (WHO, NOTE). The CLI's own user@host, being that identity,
// gets no note. The token's holder is the user that owns the client's socket: a client of user
// nobody holding a copy of the token is recorded as nobody, not as the data dir's owner.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../engine/api/types.ts';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { ax } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { serveFixture } from '../helpers/serve.ts';

const owner = `${os.userInfo().username}@${os.hostname()}`;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const served = serveFixture('ax-audit-actor-');

beforeAll(async () => {
  const file = writeFile(served.dataDir, 'hello.yaml', 'workflow: hello\ntasks:\n  a:\n    command: echo hi\n');
  expect((await ax(['apply', file], { dataDir: served.dataDir })).code).toBe(0);
}, 60_000);

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const wsModule = createRequire(import.meta.url).resolve('ws');

/** A WebSocket client run as user nobody: one request with the token, its answer printed as JSON. */
function requestAsNobody(
  port: number,
  tokenFile: string,
  method: string,
  params: unknown[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `
    const WebSocket = require(${JSON.stringify(wsModule)});
    const token = require('node:fs').readFileSync(${JSON.stringify(tokenFile)}, 'utf8').trim();
    const ws = new WebSocket('ws://127.0.0.1:${port}/api', { headers: { authorization: 'Bearer ' + token } });
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, method: ${JSON.stringify(method)}, params: ${JSON.stringify(params)} })));
    ws.on('message', (data) => { const m = JSON.parse(String(data)); if (m.id === 1) { console.log(JSON.stringify(m)); ws.close(); } });
    ws.on('error', (err) => { console.error(err.message); process.exit(2); });`;
  const child = spawn(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, cwd: '/' });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('the actor of an audit entry', () => {
  it('is who the server authenticated; a client-supplied text is a note beside it', async () => {
    const api = await connectApi(`ws://127.0.0.1:${served.serve.port}/api`, apiToken(served.dataDir));
    const run = await api.runWorkflow('hello', { actor: 'webhook from 10.0.0.7' });
    await api.setEnabled('hello', false, 'webhook from 10.0.0.7');
    api.close();

    const audit = await ax(['--json', 'audit', '-n', '10'], { dataDir: served.dataDir });
    expect(audit.code, audit.stderr).toBe(0);
    const entries = JSON.parse(audit.stdout) as AuditEntry[];
    const manual = entries.find((e) => e.action === 'run.manual' && e.detail?.startsWith(`run #${run.id}`));
    expect([manual?.actor, manual?.note]).toEqual([`${owner} (API token)`, 'webhook from 10.0.0.7']);
    const disable = entries.find((e) => e.action === 'workflow.disable');
    expect([disable?.actor, disable?.note]).toEqual([`${owner} (API token)`, 'webhook from 10.0.0.7']);
    // the run started by it is triggered by the identity, not by the claim
    expect(run.triggeredBy).toBe(`${owner} (API token)`);
    // the CLI's own apply, through the same server: its user@host is the token holder, no note
    const apply = entries.find((e) => e.action === 'workflow.apply');
    expect([apply?.actor, apply?.note]).toEqual([`${owner} (API token)`, null]);
    // the table shows both, each in its column: the row of the disable has WHO, then NOTE
    const table = await ax(['audit', '-n', '10'], { dataDir: served.dataDir });
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^WHEN \(.+\)\s+WHO\s+NOTE\s+ACTION\s+OBJECT\s+DETAIL$/);
    const disableRow = rows.find((r) => r.includes('workflow.disable'));
    expect(disableRow).toMatch(
      new RegExp(
        `${escape(`${owner} (API token)`)}\\s+webhook from 10\\.0\\.0\\.7\\s+workflow\\.disable\\s+workflow:hello`,
      ),
    );
    // nobody claims to be the webhook any more: a forged actor never stands alone, nor in the actor
    expect(entries.some((e) => e.actor.includes('webhook'))).toBe(false);
  }, 60_000);

  // Needs root, to start a client as user nobody (the machine's tests run as root).
  it.skipIf(!asRoot)(
    `names the user whose process holds the token: a copy of it used by nobody is nobody's${asRoot ? '' : ' (skipped: needs root, to act as user nobody)'}`,
    async () => {
      // A copy of the token where nobody can read it, as a user who copied it would have it.
      const shared = fs.mkdtempSync(path.join(os.tmpdir(), 'ax-token-copy-'));
      fs.chmodSync(shared, 0o755);
      const copy = path.join(shared, 'token');
      fs.writeFileSync(copy, apiToken(served.dataDir), { mode: 0o644 });
      try {
        const r = await requestAsNobody(served.serve.port, copy, 'setEnabled', ['hello', true, 'alice@elsewhere']);
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout)).not.toHaveProperty('error');
      } finally {
        fs.rmSync(shared, { recursive: true, force: true });
      }
      const entries = JSON.parse(
        (await ax(['--json', 'audit', '-n', '10'], { dataDir: served.dataDir })).stdout,
      ) as AuditEntry[];
      const enable = entries.find((e) => e.action === 'workflow.enable');
      expect([enable?.actor, enable?.note]).toEqual([`nobody@${os.hostname()} (API token)`, 'alice@elsewhere']);
    },
    60_000,
  );
});
