// Engine settings from the environment: AX_ENGINE_CONFIG='{"taskHeartbeatMs": 2000, ...}'.
// For operators tuning intervals, and for tests that must see heartbeats within seconds.
import { AxError } from '../../api/errors.ts';
import { DEFAULT_CONFIG, type EngineConfig } from '../../core/config.ts';

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<EngineConfig> {
  const text = env.AX_ENGINE_CONFIG;
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AxError('validation', `AX_ENGINE_CONFIG is not JSON: write e.g. '{"taskHeartbeatMs": 30000}'`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new AxError('validation', 'AX_ENGINE_CONFIG must be a JSON object');
  for (const [key, value] of Object.entries(parsed)) {
    if (!(key in DEFAULT_CONFIG)) {
      throw new AxError('validation', `AX_ENGINE_CONFIG: unknown setting "${key}": known ones are ${Object.keys(DEFAULT_CONFIG).join(', ')}`);
    }
    if (typeof value !== typeof DEFAULT_CONFIG[key as keyof EngineConfig]) {
      throw new AxError('validation', `AX_ENGINE_CONFIG: "${key}" must be a ${typeof DEFAULT_CONFIG[key as keyof EngineConfig]}`);
    }
  }
  return parsed as Partial<EngineConfig>;
}
