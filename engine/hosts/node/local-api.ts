// The UI and the API on 127.0.0.1 for an engine, solo or team: what `ax serve` always starts and
// the desktop app's engine host starts when the user turns the local API on. The API token is the
// data dir's; the webhook token is read on every request (writing it while the engine runs turns
// webhooks on; a secret too short leaves them off, said once per change).
import fs from 'node:fs';
import path from 'node:path';
import type { EngineApi } from '../../api/engine-api.ts';
import { type ApiServer, startApiServer } from '../../server/ws-server.ts';
import { apiToken, weakToken } from './data-dir.ts';
import { uiDir } from './ui-dir.ts';

/** The shortest webhook secret accepted: a shorter one leaves webhooks off, said once per change. */
const MIN_WEBHOOK_TOKEN_LENGTH = 16;

export interface LocalApi extends ApiServer {
  /** whether DATA_DIR/webhook-token holds a usable secret now */
  webhooksOn(): boolean;
}

/** `who` names the process in the one-line warning about a weak webhook secret (stderr). */
export async function startLocalApi(engine: EngineApi & { config: { maxEventPayloadBytes: number } }, dir: string, port: number, who: string): Promise<LocalApi> {
  const file = path.join(dir, 'webhook-token');
  let toldWeak = '';
  const webhookToken = (): string | undefined => {
    if (!fs.existsSync(file)) return undefined;
    const text = fs.readFileSync(file, 'utf8').trim();
    const weak = text === '' ? undefined : weakToken(text, MIN_WEBHOOK_TOKEN_LENGTH);
    if (!weak) return text || undefined;
    if (toldWeak !== text) {
      toldWeak = text;
      process.stderr.write(`${who}: webhooks stay off: the secret in ${file} is ${weak}\n`);
    }
    return undefined;
  };
  const server = await startApiServer({
    api: engine,
    token: apiToken(dir),
    webhookToken,
    port,
    uiDir: uiDir(),
    maxPayloadBytes: engine.config.maxEventPayloadBytes,
  });
  return Object.assign(server, { webhooksOn: () => webhookToken() !== undefined });
}
