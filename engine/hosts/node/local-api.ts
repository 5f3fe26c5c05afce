// The UI and the API on 127.0.0.1 for an engine, solo or team: what `ax serve` always starts and
// the desktop app's engine host starts when the user turns the local API on. The API token is the
// data dir's; the webhook and metrics tokens are read on every request (writing one while the
// engine runs takes effect at once; a webhook secret too short leaves webhooks off, a metrics
// secret too short refuses every scrape, each said once per change). A token file that is a
// link, another user's, or open to others is refused with the fix (private-file.ts): at start
// the server does not start; later, webhooks stay off and scrapes are refused until it is fixed.
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import type { EngineApi } from '../../api/engine-api.ts';
import type { Authenticator } from '../../core/access/authenticator.ts';
import { maskedApi } from '../../core/secrets/masked-api.ts';
import type { EngineMetrics } from '../../ports/metrics.ts';
import type { MetricsAuth } from '../../server/metrics-server.ts';
import { deviceLoginRoute } from '../../server/device-login.ts';
import type { TransportOptions } from '../../server/listen.ts';
import { type ApiServer, startApiServer } from '../../server/ws-server.ts';
import { workerEndpoint } from '../../server/worker-endpoint.ts';
import { WORKER_PATH } from '../../api/worker-protocol.ts';
import type { WorkerGateDeps } from '../../core/execution/worker-gate.ts';
import { apiToken, weakToken } from './data-dir.ts';
import { readPrivateFile } from './private-file.ts';
import { ssoServer } from './sso.ts';
import { uiDir } from './ui-dir.ts';

/** The shortest webhook or metrics secret accepted. */
const MIN_SECRET_LENGTH = 16;

export interface LocalApi extends ApiServer {
  /** the SSO button's label when single sign-on is configured (oidc-* settings) */
  ssoLabel: string | undefined;
  /** whether DATA_DIR/webhook-token holds a usable secret now */
  webhooksOn(): boolean;
  /** reads DATA_DIR/api-token again (SIGHUP on a service); throws, keeping the old one, when it cannot */
  reloadToken(): void;
}

type SecretState = { none: true } | { secret: string } | { weak: string } | { untrusted: AxError };

/** A secret kept in a file of the data dir, read on every call; a weak or untrusted one is said once per change (stderr). */
function secretFile(file: string, who: string, consequence: string): () => SecretState {
  let toldWeak = '';
  return () => {
    let text: string | undefined;
    try {
      text = readPrivateFile(file)?.trim();
    } catch (err) {
      if (!(err instanceof AxError)) throw err;
      if (toldWeak !== err.message) {
        toldWeak = err.message;
        process.stderr.write(`${who}: ${consequence}: ${err.message}\n`);
      }
      return { untrusted: err };
    }
    if (text === undefined || text === '') return { none: true };
    const weak = weakToken(text, MIN_SECRET_LENGTH);
    if (!weak) return { secret: text };
    if (toldWeak !== text) {
      toldWeak = text;
      process.stderr.write(`${who}: ${consequence}: the secret in ${file} is ${weak}\n`);
    }
    return {
      weak: `the secret in ${file} is ${weak}: write one of at least ${MIN_SECRET_LENGTH} printable characters`,
    };
  };
}

/**
 * Who may scrape GET /metrics: anyone who reaches the port while DATA_DIR/metrics-token is absent
 * or empty; with a token, its holders only; with a weak one, nobody (never open by mistake).
 */
export function metricsAuth(dir: string, who: string): () => MetricsAuth {
  const read = secretFile(path.join(dir, 'metrics-token'), who, 'metrics are refused');
  return () => {
    const state = read();
    if ('secret' in state) return { token: state.secret };
    if ('weak' in state) return { refused: state.weak };
    if ('untrusted' in state) return { refused: state.untrusted.message };
    return { open: true };
  };
}

/** Before a server starts: a token file that cannot be trusted stops it with its fix (thrown here). */
export function checkTokenFiles(dir: string): void {
  for (const name of ['api-token', 'webhook-token', 'metrics-token']) readPrivateFile(path.join(dir, name));
}

/**
 * `who` names the process in the one-line warnings about weak secrets (stderr); `listen`: the
 * address (default 127.0.0.1) and TLS / proxy / plain-HTTP options (ax serve --listen, listen.ts).
 */
export async function startLocalApi(
  engine: EngineApi & {
    config: { maxEventPayloadBytes: number };
    metrics: EngineMetrics;
    secretMask?: { mask(text: string): string };
    /** a team engine's accounts: people sign in, every request is authorized (ws-server.ts), edge workers are admitted */
    authenticator?: Authenticator;
    /** what a team node lends the edge workers that connect to it (server/worker-endpoint.ts) */
    edgeWorkerDeps?: () => Omit<WorkerGateDeps, 'refuse'>;
  },
  dir: string,
  port: number,
  who: string,
  listen: { host?: string; transport?: TransportOptions } = {},
): Promise<LocalApi> {
  const webhookSecret = secretFile(path.join(dir, 'webhook-token'), who, 'webhooks stay off');
  checkTokenFiles(dir);
  const metrics = metricsAuth(dir, who);
  const webhookToken = (): string | undefined => {
    const state = webhookSecret();
    return 'secret' in state ? state.secret : undefined;
  };
  let token = apiToken(dir);
  // Single sign-on when the oidc-* settings say so (team mode only: it needs accounts); a half
  // configuration stops the start here with what to fix.
  const sso = engine.authenticator
    ? await ssoServer(dir, engine.authenticator, (line) => process.stderr.write(`${who}: ${line}\n`))
    : undefined;
  const edges =
    engine.authenticator && engine.edgeWorkerDeps
      ? workerEndpoint({ accounts: engine.authenticator, gate: engine.edgeWorkerDeps() })
      : undefined;
  const server = await startApiServer({
    // An error's message reaches the client with the node's secrets masked.
    api: engine.secretMask ? maskedApi(engine, (text) => engine.secretMask?.mask(text) ?? text) : engine,
    token: () => token,
    webhookToken,
    port,
    ...(listen.host !== undefined && { host: listen.host }),
    ...(listen.transport && { transport: listen.transport }),
    uiDir: uiDir(),
    maxPayloadBytes: engine.config.maxEventPayloadBytes,
    metrics: { metrics: engine.metrics, auth: metrics },
    ...(engine.authenticator && {
      accounts: engine.authenticator,
      // SSO's sign-in routes, and ax login --browser: a person signed in here approves a command line's sign-in
      routes: [...(sso?.routes ?? []), deviceLoginRoute({ api: engine })],
    }),
    ...(sso && { authConfig: sso.authConfig }),
    // Team mode: edge workers connect here with a worker token (server/worker-endpoint.ts).
    ...(edges && { upgrades: { [WORKER_PATH]: edges.upgrade } }),
  });
  const close = server.close.bind(server);
  return Object.assign(server, {
    ssoLabel: sso?.oidc.authConfig().label,
    close: async (reason?: string) => {
      edges?.close();
      await close(reason);
    },
    webhooksOn: () => webhookToken() !== undefined,
    reloadToken: () => {
      token = apiToken(dir);
    },
  });
}
