import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../engine/hosts/node/config-env.ts';

describe('AX_ENGINE_CONFIG', () => {
  it('is empty when unset, and takes known settings', () => {
    expect(configFromEnv({})).toEqual({});
    expect(configFromEnv({ AX_ENGINE_CONFIG: '{"taskHeartbeatMs": 2000, "killGraceMs": 500}' })).toEqual({
      taskHeartbeatMs: 2000,
      killGraceMs: 500,
    });
  });

  it('says what is wrong: not JSON, an unknown key, a wrong type', () => {
    expect(() => configFromEnv({ AX_ENGINE_CONFIG: 'taskHeartbeatMs=2' })).toThrow(/AX_ENGINE_CONFIG is not JSON/);
    expect(() => configFromEnv({ AX_ENGINE_CONFIG: '{"taskHeartbeat": 2}' })).toThrow(
      /unknown setting "taskHeartbeat": known ones are .*taskHeartbeatMs/,
    );
    expect(() => configFromEnv({ AX_ENGINE_CONFIG: '{"taskHeartbeatMs": "2s"}' })).toThrow(
      '"taskHeartbeatMs" must be a number',
    );
  });

  it('refuses numbers out of range with the range: concurrency 0 would hang, a 0 ms tick would spin', () => {
    const config = (json: string) => () => configFromEnv({ AX_ENGINE_CONFIG: json });
    expect(config('{"maxConcurrency": 0}')).toThrow(
      'AX_ENGINE_CONFIG: "maxConcurrency" must be an integer from 1 to 1000, got 0',
    );
    expect(config('{"maxConcurrency": 2.5}')).toThrow('"maxConcurrency" must be an integer from 1 to 1000, got 2.5');
    expect(config('{"tickMs": 0}')).toThrow('"tickMs" must be an integer from 10 to 60000, got 0');
    expect(config('{"workerHeartbeatMs": -5}')).toThrow(
      '"workerHeartbeatMs" must be an integer from 100 to 3600000, got -5',
    );
    expect(config('{"taskHeartbeatMs": 1e12}')).toThrow(
      '"taskHeartbeatMs" must be an integer from 100 to 3600000, got 1000000000000',
    );
    expect(config('{"heartbeatGraceFactor": 1}')).toThrow(
      '"heartbeatGraceFactor" must be a number from 1.5 to 100, got 1',
    );
    expect(config('{"maxLineBytes": 3}')).toThrow('"maxLineBytes" must be an integer from 4 to 16777216, got 3');
    expect(
      configFromEnv({ AX_ENGINE_CONFIG: '{"maxConcurrency": 1000, "heartbeatGraceFactor": 2.5, "killGraceMs": 0}' }),
    ).toEqual({ maxConcurrency: 1000, heartbeatGraceFactor: 2.5, killGraceMs: 0 });
  });
});
