// ax login URL --browser: the device-code sign-in of server/device-login.ts from the command
// line. Asks for a code, shows where to approve it (and opens the browser when there is one),
// then asks every few seconds until the person approved or denied it, or it expired.
import os from 'node:os';
import type { Principal } from '../../api/access.ts';
import { AxError } from '../../api/errors.ts';
import { requestJson, type TlsTrust } from '../../server/ws-client.ts';
import { openInBrowser } from './open-browser.ts';

interface DeviceStart {
  userCode: string;
  pollId: string;
  expiresIn: number;
  interval: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function browserLogin(
  origin: string,
  trust: TlsTrust,
  open: boolean,
): Promise<{ token: string; principal: Principal }> {
  const started = await requestJson(`${origin}/auth/device`, {
    method: 'POST',
    body: { name: `cli@${os.hostname()}` },
    trust,
  });
  const said = (body: unknown) => String((body as { error?: unknown } | undefined)?.error ?? '');
  if (started.status === 404)
    throw new AxError(
      'validation',
      `${origin} has no browser sign-in (${said(started.body) || 'HTTP 404'}): is it a team node with accounts?`,
    );
  if (started.status !== 200)
    throw new AxError(
      'unavailable',
      `${origin}: browser sign-in refused (HTTP ${started.status}) ${said(started.body)}`,
    );
  const { userCode, pollId, expiresIn, interval } = started.body as DeviceStart;
  // our own name of the server: the one this machine reaches it by
  const url = `${origin}/auth/device?code=${userCode}`;
  process.stderr.write(
    `To sign in, open ${url}\nin a browser where you are signed in to ${origin} (SSO works), check the code ${userCode} and approve it.\nWaiting for the approval (the code expires in ${Math.round(expiresIn / 60)} minutes; Ctrl-C gives up)…\n`,
  );
  if (open) openInBrowser(url, 'ax login');
  const deadline = Date.now() + expiresIn * 1000;
  while (Date.now() < deadline) {
    await sleep(Math.max(1, interval) * 1000);
    const polled = await requestJson(`${origin}/auth/device/poll`, { method: 'POST', body: { pollId }, trust });
    if (polled.status === 202) continue;
    if (polled.status === 200) return polled.body as { token: string; principal: Principal };
    if (polled.status === 403) throw new AxError('forbidden', `${origin}: ${said(polled.body)}`);
    if (polled.status === 410) break;
    throw new AxError('unavailable', `${origin}: browser sign-in failed (HTTP ${polled.status}) ${said(polled.body)}`);
  }
  throw new AxError(
    'unauthenticated',
    `the code ${userCode} expired before it was approved: run ax login ${origin} --browser again`,
  );
}
