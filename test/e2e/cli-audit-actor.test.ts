// Audit from the connection, not the client (issue 20, item 9): a client of a real `ax serve`
// holding the API token sends actor "webhook from 10.0.0.7"; the audit records the identity the
// server authenticated (the token's holder, user@host) with that text only as a note beside it,
// and `ax audit` shows both. The CLI's own user@host, being that identity, gets no note. A UI
// session is recorded as one (the UI page shows the same actor column).
import os from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../engine/api/types.ts';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { ax } from '../helpers/ax.ts';
import { writeFile } from '../helpers/files.ts';
import { serveFixture } from '../helpers/serve.ts';

const owner = `${os.userInfo().username}@${os.hostname()}`;

const served = serveFixture('ax-audit-actor-');

beforeAll(async () => {
  const file = writeFile(served.dataDir, 'hello.yaml', 'workflow: hello\ntasks:\n  a:\n    command: echo hi\n');
  expect((await ax(['apply', file], { dataDir: served.dataDir })).code).toBe(0);
}, 60_000);

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
    expect(manual?.actor).toBe(`${owner} (API token) — note: webhook from 10.0.0.7`);
    expect(entries.find((e) => e.action === 'workflow.disable')?.actor).toBe(`${owner} (API token) — note: webhook from 10.0.0.7`);
    // the CLI's own apply, through the same server: its user@host is the token holder, no note
    expect(entries.find((e) => e.action === 'workflow.apply')?.actor).toBe(`${owner} (API token)`);
    // the table shows both
    const table = await ax(['audit', '-n', '10'], { dataDir: served.dataDir });
    expect(table.stdout).toContain(`${owner} (API token) — note: webhook from 10.0.0.7`);
    // nobody claims to be the webhook any more: a forged actor never stands alone
    expect(entries.some((e) => e.actor === 'webhook from 10.0.0.7')).toBe(false);
  }, 60_000);
});
