import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../engine/hosts/node/config-env.ts';

describe('AX_ENGINE_CONFIG', () => {
  it('is empty when unset, and takes known settings', () => {
    expect(configFromEnv({})).toEqual({});
    expect(configFromEnv({ AX_ENGINE_CONFIG: '{"taskHeartbeatMs": 2000, "killGraceMs": 500}' })).toEqual({ taskHeartbeatMs: 2000, killGraceMs: 500 });
  });

  it('says what is wrong: not JSON, an unknown key, a wrong type', () => {
    expect(() => configFromEnv({ AX_ENGINE_CONFIG: 'taskHeartbeatMs=2' })).toThrow(/AX_ENGINE_CONFIG is not JSON/);
    expect(() => configFromEnv({ AX_ENGINE_CONFIG: '{"taskHeartbeat": 2}' })).toThrow(/unknown setting "taskHeartbeat": known ones are .*taskHeartbeatMs/);
    expect(() => configFromEnv({ AX_ENGINE_CONFIG: '{"taskHeartbeatMs": "2s"}' })).toThrow('"taskHeartbeatMs" must be a number');
  });
});
