// Engine settings from the environment: AX_ENGINE_CONFIG='{"taskHeartbeatMs": 2000, ...}'.
// For operators tuning intervals, and for tests that must see heartbeats within seconds.
import { AxError } from '../../api/errors.ts';
import { DEFAULT_CONFIG, type EngineConfig } from '../../core/model/config.ts';

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<EngineConfig> {
  const text = env.AX_ENGINE_CONFIG;
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AxError('validation', `AX_ENGINE_CONFIG is not JSON: write e.g. '{"taskHeartbeatMs": 30000}'`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new AxError('validation', 'AX_ENGINE_CONFIG must be a JSON object');
  for (const [key, value] of Object.entries(parsed)) {
    if (!(key in DEFAULT_CONFIG)) {
      throw new AxError(
        'validation',
        `AX_ENGINE_CONFIG: unknown setting "${key}": known ones are ${Object.keys(DEFAULT_CONFIG).join(', ')}`,
      );
    }
    if (typeof value !== typeof DEFAULT_CONFIG[key as keyof EngineConfig]) {
      throw new AxError(
        'validation',
        `AX_ENGINE_CONFIG: "${key}" must be a ${typeof DEFAULT_CONFIG[key as keyof EngineConfig]}`,
      );
    }
    const range = RANGES[key as keyof EngineConfig];
    if (range && typeof value === 'number') {
      const [min, max, whole] = range;
      if (!Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
        throw new AxError(
          'validation',
          `AX_ENGINE_CONFIG: "${key}" must be ${whole ? 'an integer' : 'a number'} from ${min} to ${max}, got ${value}`,
        );
      }
    }
  }
  return parsed as Partial<EngineConfig>;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * What each number may be: [min, max, whole number]. Past these an engine would stall (0
 * concurrency, 0 ms ticks), overflow a timer, or refuse every payload; the defaults sit well inside.
 */
const RANGES: Partial<Record<keyof EngineConfig, [number, number, boolean]>> = {
  workerHeartbeatMs: [100, HOUR, true],
  taskHeartbeatMs: [100, HOUR, true],
  heartbeatGraceFactor: [1.5, 100, false],
  redispatchAfterMs: [100, DAY, true],
  killGraceMs: [0, HOUR, true],
  lookAheadMs: [1, HOUR, true],
  misfireThresholdMs: [0, DAY, true],
  maxCatchUp: [1, 100_000, true],
  tickMs: [10, 60_000, true],
  maxConcurrency: [1, 1000, true],
  // a payload travels in one API message, whose frames are limited to 13 MiB (ws-server.ts); 3 MiB keeps the documented bound
  maxEventPayloadBytes: [1, 3 * 1024 * 1024, true],
  maxFailovers: [0, 100, true],
  queueAlertThreshold: [1, 100_000_000, true],
  maxLineBytes: [4, 16 * 1024 * 1024, true],
  maxOutputBytes: [1, 2 ** 50, true],
  logRetentionMs: [1, 3650 * DAY, true],
  logBatchLines: [1, 100_000, true],
  logFlushMs: [1, 60_000, true],
  logBufferBytes: [1024, 2 ** 40, true],
  logGiveUpMs: [0, 7 * DAY, true],
};
