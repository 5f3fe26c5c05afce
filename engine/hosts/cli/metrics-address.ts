// ax serve --metrics-address: the argument read, the token it needs beyond loopback checked
// before the engine starts, and the metrics-only listener it asks for.
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import type { Engine } from '../../core/engine.ts';
import { metricsAuth } from '../node/local-api.ts';
import { accountMetricsToken, type MetricsServer, startMetricsServer } from '../../server/metrics-server.ts';

export interface MetricsAddress {
  host: string;
  port: number;
}

/** --metrics-address HOST:PORT ([IPv6]:PORT); the port 0-65535. */
export function metricsAddressArg(value: string): MetricsAddress {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):([0-9]{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535)
    throw new AxError(
      'validation',
      `--metrics-address must be HOST:PORT, e.g. 127.0.0.1:9464, 0.0.0.0:9464 or [::]:9464, not "${value}"`,
    );
  return { host: (m[1] ?? m[2]) as string, port };
}

const loopback = (host: string) => host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);

/**
 * Metrics on an address other machines can reach need the metrics token: they name workflows and
 * workers. Checked before the engine starts, so a refused serve changes nothing.
 */
export function checkMetricsAddress(dir: string, address: MetricsAddress | undefined): void {
  if (!address || loopback(address.host)) return;
  const auth = metricsAuth(dir, 'ax serve')();
  if ('token' in auth) return;
  const file = path.join(dir, 'metrics-token');
  const why = 'refused' in auth ? auth.refused : `put a secret of at least 16 characters in ${file} first`;
  throw new AxError(
    'validation',
    `--metrics-address ${address.host}:${address.port} lets other machines scrape this node: ${why} (Prometheus sends it as a bearer token)`,
  );
}

/** The metrics-only listener of --metrics-address, if asked for; said on stdout. */
export async function serveMetricsAddress(
  engine: Engine,
  dir: string,
  address: MetricsAddress | undefined,
): Promise<MetricsServer | undefined> {
  if (!address) return undefined;
  const server = await startMetricsServer({
    metrics: engine.metrics,
    auth: metricsAuth(dir, 'ax serve'),
    // team mode: an account's token with the metrics scope too
    ...(engine.authenticator && { accountToken: accountMetricsToken(engine.authenticator) }),
    ...address,
  });
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  console.log(`metrics also on http://${host}:${server.port}/metrics (nothing else is served there)`);
  return server;
}
