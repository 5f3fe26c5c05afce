// POST /ping/NAME[/start|/fail|/N] (design.md §13): a monitor's run reported over HTTP, by a job
// that stays on cron (`curl -fsS -X POST -H "Authorization: Bearer $TOKEN" …/ping/backup/$?`).
// Who may, the Host check and the body limit are the event endpoint's (webhook-endpoint.ts);
// the body becomes the run's log. `?run=ID` ends the run a start answered rather than the oldest.
import type http from 'node:http';
import type { EngineApi } from '../api/engine-api.ts';
import type { PingReport } from '../api/monitors.ts';
import { dispatchRequest } from './api-dispatch.ts';
import { NotText, readBody, TooLarge } from './http-body.ts';
import { HOOK_STATUS, type HookAuth, hookCaller } from './webhook-endpoint.ts';

export const PING_PATH = /^(?:\/api\/v1)?\/ping\/([A-Za-z0-9][A-Za-z0-9_.-]{0,99})(?:\/(start|fail|success|\d{1,3}))?$/;

export interface PingOptions {
  api: EngineApi;
  /** the webhook token, or (team mode) an account's token with the events scope */
  auth: HookAuth;
  maxPayloadBytes: number;
  reply: (res: http.ServerResponse, status: number, body?: unknown) => void;
}

export async function servePing(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  match: RegExpExecArray,
  url: URL,
  options: PingOptions,
): Promise<void> {
  const { reply } = options;
  const name = match[1] as string;
  const suffix = match[2];
  if (req.method !== 'POST') return reply(res, 405, { error: `POST /ping/${name}` });
  const caller = await hookCaller(req, options.auth, 'pings');
  if (!caller.ok) return reply(res, caller.status, { error: caller.error });
  const run = url.searchParams.get('run');
  if (run !== null && !/^[1-9]\d{0,15}$/.test(run))
    return reply(res, 400, { error: `?run= takes the run id a start answered (got "${run}")` });
  let log: string;
  try {
    log = await readBody(req, options.maxPayloadBytes);
  } catch (err) {
    res.setHeader('connection', 'close');
    return reply(res, err instanceof TooLarge ? 413 : err instanceof NotText ? 415 : 400, {
      error: err instanceof Error ? err.message : String(err),
    });
  }
  const exitCode = suffix !== undefined && /^\d+$/.test(suffix) ? Number(suffix) : undefined;
  if (exitCode !== undefined && exitCode > 255)
    return reply(res, 400, { error: `an exit code is 0 to 255 (got ${exitCode})` });
  const report: PingReport = {
    what: exitCode !== undefined ? 'exit' : ((suffix ?? 'success') as PingReport['what']),
    ...(exitCode !== undefined && { exitCode }),
    ...(run !== null && { runId: Number(run) }),
    ...(log !== '' && { log }),
    from: `POST /ping from ${req.socket.remoteAddress ?? 'an unknown address'}`,
  };
  const response = await dispatchRequest(
    options.api,
    { id: 0, method: 'ping', params: [name, report] },
    caller.identity,
  );
  if ('error' in response)
    return reply(res, HOOK_STATUS[response.error.code] ?? 400, { error: response.error.message });
  const answer = response.result as { run: { id: number; state: string }; logCut?: boolean };
  return reply(res, 200, { run: answer.run.id, state: answer.run.state, ...(answer.logCut && { logCut: true }) });
}
