// Audit from the connection, not the client: a client of a real `ax serve` holding the API token
// sends actor "webhook from 10.0.0.7"; the audit's actor is exactly the identity the server
// authenticated (the token's holder, user@host), and that text is only the entry's note, in its
// own column; `ax audit` shows both (WHO, NOTE). The CLI's own user@host, being that identity,
// gets no note.
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../engine/api/types.ts';
import { apiToken } from '../../engine/hosts/node/data-dir.ts';
import { connectApi } from '../../engine/server/ws-client.ts';
import { ax, killAllAx, type ServeProcess, startServe, writeFile } from '../helpers/cli.ts';
import { tempDir } from '../helpers/solo-engine.ts';

let dataDir: string;
let serve: ServeProcess;
const owner = `${os.userInfo().username}@${os.hostname()}`;
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

beforeAll(async () => {
  dataDir = tempDir('ax-audit-actor-');
  serve = await startServe({ dataDir });
  const file = writeFile(dataDir, 'hello.yaml', 'workflow: hello\ntasks:\n  a:\n    command: echo hi\n');
  expect((await ax(['apply', file], { dataDir })).code).toBe(0);
}, 60_000);

afterAll(() => killAllAx());

describe('the actor of an audit entry', () => {
  it('is who the server authenticated; a client-supplied text is a note beside it', async () => {
    const api = await connectApi(`ws://127.0.0.1:${serve.port}/api`, apiToken(dataDir));
    const run = await api.runWorkflow('hello', { actor: 'webhook from 10.0.0.7' });
    await api.setEnabled('hello', false, 'webhook from 10.0.0.7');
    api.close();

    const audit = await ax(['--json', 'audit', '-n', '10'], { dataDir });
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
    const table = await ax(['audit', '-n', '10'], { dataDir });
    expect(table.code, table.stderr).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^WHEN \(.+\)\s+WHO\s+NOTE\s+ACTION\s+OBJECT\s+DETAIL$/);
    const disableRow = rows.find((r) => r.includes('workflow.disable'));
    expect(disableRow).toMatch(new RegExp(`${escape(`${owner} (API token)`)}\\s+webhook from 10\\.0\\.0\\.7\\s+workflow\\.disable\\s+workflow:hello`));
    // nobody claims to be the webhook any more: a forged actor never stands alone, nor in the actor
    expect(entries.some((e) => e.actor.includes('webhook'))).toBe(false);
  }, 60_000);
});
