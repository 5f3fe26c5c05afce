// The Lua behind every coordinator operation that must read and write atomically. Each runs as
// one EVALSHA: one round trip, and no other client's command between its steps. Some scripts
// build key names from a prefix argument: on a Redis Cluster those keys share the prefix's hash
// tag (redis-keys.ts), so they sit in the slot of the declared keys.
import { createHash } from 'node:crypto';

export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

const lua = (name: string, source: string): LuaScript => ({
  name,
  source,
  sha: createHash('sha1').update(source).digest('hex'),
});

/** KEYS: queue, wake channel. ARGV: message JSON. */
export const ENQUEUE = lua(
  'enqueue',
  `redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('PUBLISH', KEYS[2], '1')
return 1`,
);

/**
 * KEYS: queue, in-flight list. ARGV: max. Each message moves to in-flight in the same step that
 * takes it, so a worker dying after the take leaves it in in-flight rather than nowhere.
 */
export const TAKE = lua(
  'take',
  `local max = tonumber(ARGV[1])
local taken = {}
while #taken < max do
  local m = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
  if not m then break end
  taken[#taken + 1] = m
end
return taken`,
);

/** KEYS: in-flight list. ARGV: instanceId, attempt. Removes the first match; other fields are ignored. */
export const ACK = lua(
  'ack',
  `local id, attempt = tonumber(ARGV[1]), tonumber(ARGV[2])
for _, raw in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local m = cjson.decode(raw)
  if m.instanceId == id and m.attempt == attempt then
    return redis.call('LREM', KEYS[1], 1, raw)
  end
end
return 0`,
);

/**
 * KEYS: worker key, claim key, known-workers set. ARGV: record JSON, TTL ms, worker id, claim
 * token, take over ("1"/"0"). A registration under another live claim is kept unless the caller
 * takes over (see Coordinator.heartbeatWorker); returns 1 when written, 0 when refused.
 */
export const HEARTBEAT_WORKER = lua(
  'heartbeatWorker',
  `local held = redis.call('GET', KEYS[2])
if ARGV[4] ~= '' and held and held ~= ARGV[4] and ARGV[5] ~= '1' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[4] ~= '' then redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[2]) else redis.call('DEL', KEYS[2]) end
redis.call('SADD', KEYS[3], ARGV[3])
return 1`,
);

/**
 * KEYS: known-workers set (or known-nodes set). ARGV: worker (node) key prefix. Returns the live
 * records and drops ids whose key expired — in one step, so a worker renewing at that moment is
 * never dropped from the set.
 */
export const LIST_WORKERS = lua(
  'listWorkers',
  `local alive = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local record = redis.call('GET', ARGV[1] .. id)
  if record then alive[#alive + 1] = record else redis.call('SREM', KEYS[1], id) end
end
return alive`,
);

/** KEYS: lock. ARGV: owner. Deletes the lock only when this owner holds it. */
export const RELEASE_LOCK = lua(
  'releaseStartLock',
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
);

/**
 * KEYS: lease, token counter. ARGV: holder, ttlMs. Returns the fencing token, or nil when another
 * holder has the lease. Held by the caller → renewed, same token. Free (never taken, released or
 * expired, even if the caller held it before) → a new token, greater than every earlier one. A
 * missing counter is seeded from the server clock in µs, so tokens keep growing after the counter
 * itself is lost (FLUSHALL, a restart without persistence): far fewer than one lease is taken per
 * µs. The seed (~1.7e15) stays below 2^53, exact in Lua and JS numbers, until the year 2255.
 */
export const ACQUIRE_LEASE = lua(
  'acquireLease',
  `local value = redis.call('GET', KEYS[1])
if value then
  local sep = string.find(value, '|', 1, true)
  if string.sub(value, sep + 1) ~= ARGV[1] then return nil end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(string.sub(value, 1, sep - 1))
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  local now = redis.call('TIME')
  redis.call('SET', KEYS[2], string.format('%d', tonumber(now[1]) * 1000000 + tonumber(now[2])))
end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], string.format('%d', token) .. '|' .. ARGV[1], 'PX', ARGV[2])
return token`,
);

/** KEYS: node key, known-nodes set. ARGV: presence JSON, TTL ms, node id. */
export const HEARTBEAT_NODE = lua(
  'heartbeatNode',
  `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[3])
return 1`,
);

/** KEYS: lease. ARGV: holder. Frees the lease only when called by its holder. */
export const RELEASE_LEASE = lua(
  'releaseLease',
  `local value = redis.call('GET', KEYS[1])
if value and string.sub(value, string.find(value, '|', 1, true) + 1) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`,
);

/**
 * KEYS: events channel. ARGV: payload. A cluster's PUBLISH goes to any node and reaches the
 * others over the cluster bus, so two events sent to two nodes can arrive swapped; as a script
 * with the channel declared it runs on the master of the team's slot, every time, in order.
 */
export const PUBLISH_IN_SLOT = lua('publish', `return redis.call('PUBLISH', KEYS[1], ARGV[1])`);
