// An account's token on the HTTP endpoints beside the API, on a real team engine with accounts:
// POST /events/NAME and /ping/NAME take a token with the events scope (limited to its workflow
// when it names one, audited as its user), GET /metrics one with the metrics scope; the data
// dir's webhook and metrics tokens keep working; a token without the scope is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { type AuthServer, METRICS_TOKEN, openAuthServer, WEBHOOK_TOKEN } from '../helpers/team/auth-server.ts';
import { SKIP_REASON } from '../helpers/team/harness.ts';
import { teamServicesAvailable } from '../helpers/services.ts';
import { waitFor } from '../helpers/wait-for.ts';

const available = await teamServicesAvailable();

const spec = (text: string) => parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec;

// Skipped only off CI on a machine without MariaDB/Redis: under CI=true the availability check throws instead.
describe.skipIf(!available)(`account tokens on the webhook, pings and /metrics (${SKIP_REASON})`, () => {
  let s: AuthServer;
  const post = (path: string, token: string, body = '{}') =>
    fetch(`${s.base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });

  beforeAll(async () => {
    s = await openAuthServer('bearer');
    await s.admin.applyMany(
      [
        spec('workflow: orders\non_event: order-placed\ntasks:\n  t: { command: "true" }\n'),
        spec('workflow: invoices\non_event: invoice-due\ntasks:\n  t: { command: "true" }\n'),
        spec('workflow: backup\nschedule: "0 3 * * *"\nmonitor: { grace: 1h }\n'),
      ],
      'test',
    );
  }, 120_000);

  afterAll(async () => {
    await s?.close();
  });

  it('an events token triggers; its workflow limit holds; a read token is refused; the file token still works', async () => {
    const events = await s.person('hook-bot', 'operator', [], ['events']);
    const accepted = await post('/events/order-placed', events);
    expect(accepted.status).toBe(202);
    const audit = await waitFor(async () =>
      (await s.admin.listAudit(100)).find((e) => e.actor === 'hook-bot' && e.action !== 'refused'),
    );
    expect(audit).toMatchObject({ role: 'operator', address: '127.0.0.1' });
    expect(audit.note).toMatch(/^webhook from /);

    const onlyOrders = await s.person('orders-bot', 'operator', [], ['events'], 'orders');
    expect((await post('/events/order-placed', onlyOrders)).status).toBe(202);
    const other = await post('/events/invoice-due', onlyOrders);
    expect(other.status).toBe(403);
    expect(((await other.json()) as { error: string }).error).toMatch(/acts only on workflow orders, not invoices/);

    const reader = await s.person('hook-reader', 'viewer');
    const refused = await post('/events/order-placed', reader);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toMatch(/needs the operator role \(you are viewer\)/);
    expect((await post('/events/order-placed', 'axt_unknown')).status).toBe(401);
    expect((await post('/events/order-placed', WEBHOOK_TOKEN)).status).toBe(202);
  });

  it('a ping takes an events token too', async () => {
    const events = await s.person('ping-bot', 'operator', [], ['events'], 'backup');
    const ok = await post('/ping/backup', events, 'all fine');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { state: string }).state).toBe('SUCCESS');
    expect((await post('/ping/orders', events, '')).status).toBe(403);
    expect((await post('/ping/backup', WEBHOOK_TOKEN, '')).status).toBe(200);
  });

  it('/metrics takes a token with the metrics scope, and the metrics file token; not a read token', async () => {
    const scrape = (token: string) => fetch(`${s.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    const metrics = await s.person('prometheus', 'operator', [], ['metrics']);
    const ok = await scrape(metrics);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/^# (HELP|TYPE) ax_/m);
    expect((await scrape(METRICS_TOKEN)).status).toBe(200);
    expect((await scrape(await s.person('metrics-reader', 'viewer'))).status).toBe(401);
  });
});
