// Edge workers in team tests: worker tokens made by the team's real accounts service (on its
// database), and the API port a node printed (where its /worker endpoint is).
import { nodeCrypto } from '../../../engine/adapters/crypto/node-crypto.ts';
import { systemClock } from '../../../engine/adapters/system-clock.ts';
import type { TokenScope } from '../../../engine/api/access.ts';
import { AccessService } from '../../../engine/core/access/access-service.ts';
import type { Team } from './harness.ts';
import type { TeamProcess } from './team-process.ts';

const services = new WeakMap<Team, Promise<AccessService>>();

/** The team's accounts service, with an admin user `edge-admin` who makes the tokens. */
export function accounts(team: Team): Promise<AccessService> {
  let service = services.get(team);
  if (!service) {
    service = (async () => {
      const access = new AccessService({ store: team.store, clock: systemClock, crypto: nodeCrypto, nodeUser: 'test' });
      // made by the node itself (an actor that is no user: the node's admin)
      await access.addUser({ name: 'edge-admin', role: 'admin', password: 'a long enough password' }, 'node:test');
      return access;
    })();
    services.set(team, service);
  }
  return service;
}

/** A token for worker `workerId` offering `labels` (scopes default: worker), as `ax tokens create` makes it. */
export async function workerToken(
  team: Team,
  workerId: string,
  labels: string[],
  o: { scopes?: TokenScope[]; name?: string } = {},
): Promise<string> {
  const access = await accounts(team);
  const created = await access.createToken(
    { name: o.name ?? `edge-${workerId}`, scopes: o.scopes ?? ['worker'], workerId, labels },
    'edge-admin',
  );
  return created.token;
}

/** The API port a `serve` node printed ("API ws://127.0.0.1:PORT/api"). */
export async function apiPort(node: TeamProcess): Promise<number> {
  const line = await node.waitForLine(/API ws:\/\/127\.0\.0\.1:\d+\/api/);
  return Number(/127\.0\.0\.1:(\d+)\/api/.exec(line.text)?.[1]);
}
