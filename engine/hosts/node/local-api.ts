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
import { maskedApi } from '../../core/secrets/masked-api.ts';
import type { EngineMetrics } from '../../ports/metrics.ts';
import type { MetricsAuth } from '../../server/metrics-server.ts';
import { type ApiServer, startApiServer } from '../../server/ws-server.ts';
import { apiToken, weakToken } from './data-dir.ts';
import { readPrivateFile } from './private-file.ts';
import { uiDir } from './ui-dir.ts';

/** The shortest webhook or metrics secret accepted. */
const MIN_SECRET_LENGTH = 16;

export interface LocalApi extends ApiServer {
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

/** `who` names the process in the one-line warnings about weak secrets (stderr). */
export async function startLocalApi(
  engine: EngineApi & {
    config: { maxEventPayloadBytes: number };
    metrics: EngineMetrics;
    secretMask?: { mask(text: string): string };
  },
  dir: string,
  port: number,
  who: string,
): Promise<LocalApi> {
  const webhookSecret = secretFile(path.join(dir, 'webhook-token'), who, 'webhooks stay off');
  checkTokenFiles(dir);
  const metrics = metricsAuth(dir, who);
  const webhookToken = (): string | undefined => {
    const state = webhookSecret();
    return 'secret' in state ? state.secret : undefined;
  };
  let token = apiToken(dir);
  const server = await startApiServer({
    // An error's message reaches the client with the node's secrets masked.
    api: engine.secretMask ? maskedApi(engine, (text) => engine.secretMask?.mask(text) ?? text) : engine,
    token: () => token,
    webhookToken,
    port,
    uiDir: uiDir(),
    maxPayloadBytes: engine.config.maxEventPayloadBytes,
    metrics: { metrics: engine.metrics, auth: metrics },
  });
  return Object.assign(server, {
    webhooksOn: () => webhookToken() !== undefined,
    reloadToken: () => {
      token = apiToken(dir);
    },
  });
}
