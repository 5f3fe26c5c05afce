// Every API method as every role, over a real WebSocket with that user's token, on a real team
// engine (MariaDB + Redis) with its accounts service: allowed exactly as the expected map below
// says, which is kept apart from METHOD_RULES so that a changed rule shows here; a method added
// to API_METHODS without an entry fails (the Record type and the key check). Then what the roles
// cannot see or change: another group's workflows, a private group's rows, logs and events; token
// scopes and a token's workflow; expired and revoked tokens; refusals in the audit.
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Role, ROLES } from '../../engine/api/access.ts';
import { METHOD_RULES } from '../../engine/api/method-rules.ts';
import { API_METHODS, type ApiMethod } from '../../engine/api/engine-api.ts';
import { AxError } from '../../engine/api/errors.ts';
import type { EngineEvent } from '../../engine/api/events.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { connectApi, type RemoteApi } from '../../engine/server/ws-client.ts';
import { type AuthServer, openAuthServer, PASSWORD } from '../helpers/team/auth-server.ts';
import { SKIP_REASON } from '../helpers/team/harness.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { holdsFor, waitFor } from '../helpers/wait-for.ts';
import WebSocket from 'ws';

const available = await teamServicesAvailable();
const spec = (name: string, owner?: string, event?: string) =>
  parseWorkflowFile(
    [
      `workflow: ${name}`,
      owner && `owner: ${owner}`,
      event && `on_event: ${event}`,
      'tasks:',
      '  t: { command: "true" }',
    ]
      .filter(Boolean)
      .join('\n'),
    { defaultTimezone: 'UTC' },
  ).spec;

/** The weakest role that may call each method ('self': every role, about themselves). */
const EXPECTED: Record<ApiMethod, Role> = {
  apply: 'editor',
  applyMany: 'editor',
  validate: 'viewer',
  formatWorkflow: 'viewer',
  exportWorkflow: 'viewer',
  listWorkflows: 'viewer',
  nextFires: 'viewer',
  previewCrontabImport: 'editor',
  importCrontab: 'editor',
  setEnabled: 'operator',
  removeWorkflow: 'editor',
  runWorkflow: 'operator',
  rerunTask: 'operator',
  rerunFailed: 'operator',
  cancelRun: 'operator',
  backfill: 'operator',
  listBackfills: 'viewer',
  getBackfill: 'viewer',
  cancelBackfill: 'operator',
  rerunBackfillFailed: 'operator',
  trigger: 'operator',
  ping: 'operator',
  setSchedulingPaused: 'operator',
  catchUpSchedules: 'operator',
  listRuns: 'viewer',
  getRun: 'viewer',
  runGrid: 'viewer',
  dashboard: 'viewer',
  search: 'viewer',
  taskStats: 'viewer',
  getInstance: 'viewer',
  readLogs: 'viewer',
  logInfo: 'viewer',
  searchLog: 'viewer',
  listWorkers: 'viewer',
  drainWorker: 'admin',
  listAudit: 'admin',
  listAlerts: 'viewer',
  listAlertChannels: 'viewer',
  testAlertChannel: 'admin',
  engineInfo: 'viewer',
  lineage: 'viewer',
  runCalendar: 'viewer',
  durationTrends: 'viewer',
  runWaits: 'viewer',
  whoami: 'viewer',
  listUsers: 'admin',
  addUser: 'admin',
  updateUser: 'admin',
  removeUser: 'admin',
  changePassword: 'viewer',
  listGroups: 'viewer',
  setGroup: 'admin',
  createToken: 'viewer',
  listTokens: 'viewer',
  revokeToken: 'viewer',
  signOutEverywhere: 'viewer',
  listTeamSecrets: 'viewer',
  setTeamSecret: 'editor',
  removeTeamSecret: 'editor',
};

/** Parameters that pass the schema; each role's own where a call would collide with another's. */
function paramsFor(method: ApiMethod, role: Role, ids: { run: number; instance: number }): unknown[] {
  const now = Date.now();
  const params: Record<ApiMethod, unknown[]> = {
    apply: [spec(`new-${role}`), 'x'],
    applyMany: [[spec(`many-${role}`)], 'x'],
    validate: [{ spec: spec('v') }],
    formatWorkflow: [spec('f')],
    exportWorkflow: ['open.wf'],
    listWorkflows: [],
    nextFires: [{ cron: '0 * * * *' }, 2],
    previewCrontabImport: [{ text: '' }],
    importCrontab: [{ text: '', lines: [] }, 'x'],
    setEnabled: ['open.wf', true, 'x'],
    removeWorkflow: ['no-such-workflow', 'x'],
    runWorkflow: ['open.wf', { actor: 'x' }],
    rerunTask: [ids.run, 't', 'x'],
    rerunFailed: [ids.run, 'x'],
    cancelRun: [999_999, { actor: 'x' }],
    backfill: [{ workflow: 'open.wf', from: now - 3_600_000, to: now, dryRun: true }, 'x'],
    listBackfills: [{}],
    getBackfill: [999_999],
    cancelBackfill: [999_999, 'x'],
    rerunBackfillFailed: [999_999, 'x'],
    trigger: ['open-event', null, 'x'],
    ping: ['open.wf', { what: 'success', from: 'test' }],
    setSchedulingPaused: [false, 'x'],
    catchUpSchedules: [],
    listRuns: [{}],
    getRun: [ids.run],
    runGrid: ['open.wf', {}],
    dashboard: [],
    search: ['open'],
    taskStats: ['open.wf'],
    getInstance: [ids.instance],
    readLogs: [ids.instance, 0, 10],
    logInfo: [ids.instance],
    searchLog: [ids.instance, 'x', {}],
    listWorkers: [],
    drainWorker: ['no-such-worker', 'x'],
    listAudit: [10],
    listAlerts: [{}],
    listAlertChannels: [],
    testAlertChannel: ['no-such-channel', 'x'],
    engineInfo: [],
    lineage: ['open.wf.t'],
    runCalendar: [{ from: now - 86_400_000, to: now }],
    durationTrends: ['open.wf'],
    runWaits: [ids.run],
    whoami: [],
    listUsers: [],
    addUser: [{ name: `added-by-${role}`, role: 'viewer', password: PASSWORD }, 'x'],
    updateUser: ['no-such-user', {}, 'x'],
    removeUser: ['no-such-user', 'x'],
    changePassword: [PASSWORD, `${PASSWORD} changed`, 'x'],
    listGroups: [],
    setGroup: [{ name: `group-${role}`, private: false }, 'x'],
    createToken: [{ name: `own-${role}`, scopes: ['read'] }, 'x'],
    listTokens: [{}, 'x'],
    revokeToken: [null, 'no-such-token', 'x'],
    signOutEverywhere: [null, 'x'],
    listTeamSecrets: [],
    setTeamSecret: [{ name: `secret-${role}`, value: 'a-team-secret-value' }, 'x'],
    removeTeamSecret: ['no-such-secret', 'x'],
  };
  return params[method];
}

async function call(
  api: RemoteApi,
  method: ApiMethod,
  params: unknown[],
): Promise<{ code?: string; message?: string }> {
  try {
    await (api[method] as (...a: unknown[]) => Promise<unknown>)(...params);
    return {};
  } catch (err) {
    return err instanceof AxError ? { code: err.code, message: err.message } : { code: 'thrown', message: String(err) };
  }
}

/** 'open' or the HTTP status of a refused upgrade */
function upgrade(url: string, token: string): Promise<'open' | number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
}

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(`people at the API (${SKIP_REASON})`, () => {
  let s: AuthServer;
  let ids: { run: number; instance: number };
  const clients: RemoteApi[] = [];
  const as = async (token: string) => {
    const api = await connectApi(s.wsUrl, token);
    clients.push(api);
    return api;
  };

  beforeAll(async () => {
    s = await openAuthServer('roles');
    await s.admin.setGroup({ name: 'billing', private: true }, 'test');
    await s.admin.setGroup({ name: 'data-team', private: false }, 'test');
    await s.admin.applyMany(
      [spec('open.wf', undefined, 'open-event'), spec('billing.daily', 'billing'), spec('data.load', 'data-team')],
      'test',
    );
    const run = await s.admin.runWorkflow('open.wf', { actor: 'test' });
    const detail = await waitFor(async () => {
      const d = await s.admin.getRun(run.id);
      return d.instances.length > 0 ? d : undefined;
    });
    ids = { run: run.id, instance: (detail.instances[0] as { id: number }).id };
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    await s?.close();
  });

  it('the expected map names every API method, and METHOD_RULES agrees with it', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...API_METHODS].sort());
    expect(Object.keys(METHOD_RULES).sort()).toEqual([...API_METHODS].sort());
    for (const method of API_METHODS) expect([method, METHOD_RULES[method].role]).toEqual([method, EXPECTED[method]]);
  });

  it.each(ROLES)(
    'every method as a %s: allowed or forbidden exactly as expected',
    async (role) => {
      const api = await as(await s.person(`user-${role}`, role));
      const wrong: string[] = [];
      for (const method of API_METHODS) {
        const outcome = await call(api, method, paramsFor(method, role, ids));
        const allowed = ROLES.indexOf(role) >= ROLES.indexOf(EXPECTED[method]);
        if (allowed && outcome.code === 'forbidden') wrong.push(`${method} refused: ${outcome.message}`);
        if (!allowed) {
          if (outcome.code !== 'forbidden') wrong.push(`${method} not refused (${outcome.code ?? 'ok'})`);
          else if (!outcome.message?.includes(`needs the ${EXPECTED[method]} role (you are ${role})`))
            wrong.push(`${method}: the refusal does not name the role: ${outcome.message}`);
        }
      }
      expect(wrong).toEqual([]);
      // whoami is the server's answer: the principal it admitted
      expect(await api.whoami()).toMatchObject({ user: `user-${role}`, role, via: 'token', address: '127.0.0.1' });
    },
    120_000,
  );

  it('every topic as every role: watched, and a token without the read scope watches nothing', async () => {
    for (const role of ROLES) {
      const api = await as(await s.person(`topics-${role}`, role));
      const seen: EngineEvent[] = [];
      for (const topic of ['runs', 'workflows', 'workers', 'alerts', `log:${ids.instance}`] as const)
        await api.subscribe([topic], (e) => seen.push(e));
      await s.admin.setEnabled('open.wf', true, 'test');
      await waitFor(() => seen.some((e) => e.type === 'workflow'));
    }
    const metricsOnly = await as(await s.person('metrics-bot', 'operator', [], ['metrics']));
    const reader = await as(await s.person('topic-reader', 'viewer'));
    const seen: EngineEvent[] = [];
    const control: EngineEvent[] = [];
    await metricsOnly.subscribe(['workflows'], (e) => seen.push(e));
    await reader.subscribe(['workflows'], (e) => control.push(e));
    await s.admin.setEnabled('open.wf', true, 'test');
    await waitFor(() => control.length > 0);
    // the same event went out to both at once: a second more is ample for a late one to show
    await holdsFor(() => seen.length === 0, 1_000);
  }, 120_000);

  it("an editor changes their own group's workflows, not another group's; the refusal names the group", async () => {
    const editor = await as(await s.person('ed-data', 'editor', ['data-team']));
    await editor.apply(spec('data.load', 'data-team'), 'x');
    const refused = await call(editor, 'apply', [spec('billing.daily', 'billing'), 'x']);
    expect(refused).toEqual({
      code: 'forbidden',
      message:
        'workflow billing.daily belongs to group billing: editors of billing may change it (you are in data-team)',
    });
    expect((await call(editor, 'removeWorkflow', ['billing.daily', 'x'])).code).toBe('forbidden');
    // taking it over by applying it without an owner, or making a new one for billing: refused too
    expect((await call(editor, 'apply', [spec('billing.daily', 'data-team'), 'x'])).code).toBe('forbidden');
    expect((await call(editor, 'apply', [spec('billing.new', 'billing'), 'x'])).message).toMatch(
      /owned by group billing is changed by editors of billing/,
    );
    const billingEditor = await as(await s.person('ed-bill', 'editor', ['billing']));
    await billingEditor.apply(spec('billing.daily', 'billing'), 'x');
  }, 60_000);

  it('a viewer outside a private group sees none of its rows, logs or events', async () => {
    const billingRun = await s.admin.runWorkflow('billing.daily', { actor: 'test' });
    const billingInstance = await waitFor(async () => (await s.admin.getRun(billingRun.id)).instances[0]);
    const outsider = await as(await s.person('view-data', 'viewer', ['data-team']));
    const member = await as(await s.person('view-bill', 'viewer', ['billing']));

    expect((await outsider.listWorkflows()).map((w) => w.name).sort()).not.toContain('billing.daily');
    expect((await member.listWorkflows()).map((w) => w.name)).toContain('billing.daily');
    expect((await outsider.listRuns({})).map((r) => r.workflowName)).not.toContain('billing.daily');
    expect((await member.listRuns({})).map((r) => r.workflowName)).toContain('billing.daily');
    expect((await outsider.dashboard()).running.map((r) => r.workflowName)).not.toContain('billing.daily');
    expect((await outsider.search('billing')).length).toBe(0);
    expect(await call(outsider, 'exportWorkflow', ['billing.daily'])).toEqual({
      code: 'forbidden',
      message:
        'group billing is private: workflow billing.daily is seen by members of billing only (you are in data-team; exportWorkflow refused)',
    });
    expect((await call(outsider, 'getRun', [billingRun.id])).code).toBe('forbidden');
    expect((await call(outsider, 'readLogs', [billingInstance.id, 0, 10])).code).toBe('forbidden');
    expect((await call(member, 'readLogs', [billingInstance.id, 0, 10])).code).toBeUndefined();
    // the log download is the same read
    const download = (token: string) =>
      fetch(`${s.base}/download/logs/${billingInstance.id}`, { headers: { authorization: `Bearer ${token}` } });
    const outsiderToken = await s.person('view-data-dl', 'viewer', ['data-team']);
    const refusedDownload = await download(outsiderToken);
    expect(refusedDownload.status).toBe(403);
    expect(((await refusedDownload.json()) as { error: string }).error).toMatch(/group billing is private/);
    expect((await download(await s.person('view-bill-dl', 'viewer', ['billing']))).status).toBe(200);

    // events: the outsider hears data.load's run, never billing's; its log topic is refused
    const heard: EngineEvent[] = [];
    await outsider.subscribe(['runs', `log:${billingInstance.id}`], (e) => heard.push(e));
    const memberHeard: EngineEvent[] = [];
    await member.subscribe(['runs'], (e) => memberHeard.push(e));
    await s.admin.runWorkflow('billing.daily', { actor: 'test' });
    const dataRun = await s.admin.runWorkflow('data.load', { actor: 'test' });
    await waitFor(() => heard.some((e) => e.type === 'run' && e.runId === dataRun.id));
    await waitFor(() => memberHeard.some((e) => e.type === 'run' && e.workflowName === 'billing.daily'));
    expect(heard.filter((e) => e.type === 'run' && e.workflowName === 'billing.daily')).toEqual([]);
  }, 60_000);

  it("tokens: a read token cannot run; a workflow's token acts on it alone; expired and revoked tokens are refused at the upgrade", async () => {
    const reader = await as(await s.person('op-reader', 'operator', [], ['read']));
    const refused = await call(reader, 'runWorkflow', ['open.wf', { actor: 'x' }]);
    expect(refused.code).toBe('forbidden');
    expect(refused.message).toMatch(/lacks the run scope that runWorkflow needs \(it has read\)/);

    const limited = await as(await s.person('op-one', 'operator', [], ['read', 'run'], 'data.load'));
    await limited.runWorkflow('data.load', { actor: 'x' });
    expect((await call(limited, 'runWorkflow', ['open.wf', { actor: 'x' }])).message).toMatch(
      /acts only on workflow data.load, not open.wf/,
    );
    expect((await limited.listWorkflows()).map((w) => w.name)).toEqual(['data.load']);
    expect((await call(limited, 'setSchedulingPaused', [true, 'x'])).code).toBe('forbidden');
    // a token makes no token wider than itself
    expect((await call(reader, 'createToken', [{ name: 'wider', scopes: ['run'] }, 'x'])).code).toBe('forbidden');

    const revokedToken = await s.person('op-revoked', 'operator');
    expect(await upgrade(s.wsUrl, revokedToken)).toBe('open');
    const [record] = (await s.admin.listTokens({ user: 'op-revoked' }, 'test')) as { name: string }[];
    await s.admin.revokeToken('op-revoked', (record as { name: string }).name, 'test');
    expect(await upgrade(s.wsUrl, revokedToken)).toBe(401);

    const expiring = await s.person('op-expired', 'operator');
    expect(await upgrade(s.wsUrl, expiring)).toBe('open');
    // its expiry moved into the past in the team database itself
    const db = await mysql.createConnection(s.mysqlUrl);
    await db.query('UPDATE ax_token SET expires_at = ? WHERE user = ?', [Date.now() - 1_000, 'op-expired']);
    await db.end();
    expect(await upgrade(s.wsUrl, expiring)).toBe(401);
    expect(await upgrade(s.wsUrl, 'axt_not-a-token-at-all')).toBe(401);
  }, 60_000);

  it('refusals are in the audit with the user, the role and the address', async () => {
    const viewer = await as(await s.person('audited', 'viewer'));
    expect((await call(viewer, 'setSchedulingPaused', [true, 'x'])).code).toBe('forbidden');
    const entries = await waitFor(async () => {
      const list = await s.admin.listAudit(200);
      const mine = list.filter((e) => e.actor === 'audited' && e.action === 'refused');
      return mine.length > 0 ? mine : undefined;
    });
    expect(entries[0]).toMatchObject({ role: 'viewer', address: '127.0.0.1' });
    expect(JSON.stringify(entries[0])).toMatch(/setSchedulingPaused needs the operator role/);
    // and an allowed change names the user, role and address too
    const operator = await as(await s.person('op-audited', 'operator'));
    await operator.setEnabled('open.wf', true, 'from the test');
    const change = await waitFor(async () =>
      (await s.admin.listAudit(200)).find((e) => e.actor === 'op-audited' && e.action !== 'refused'),
    );
    expect(change).toMatchObject({ role: 'operator', address: '127.0.0.1', note: 'from the test' });
  }, 60_000);
});
