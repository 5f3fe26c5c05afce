// A real solo engine with team mode's people in front of it, for the component tests of the people
// screens: the accounts service (AccessService over its own SQLite store, migration 0024, scrypt)
// answers the people half of the API, the engine the rest. The connection carries the identity the
// server gives a signed-in person, so api-dispatch authorizes every request as the server does
// (METHOD_RULES, narrowing, refusals) and answers whoami from the principal. The Chromium test
// test/ui/people.test.ts runs against a real team server.
import fs from 'node:fs';
import path from 'node:path';
import type { AccessApi, NewUser, Principal } from '../../../engine/api/access.ts';
import type { EngineApi } from '../../../engine/api/engine-api.ts';
import { nodeCrypto } from '../../../engine/adapters/crypto/node-crypto.ts';
import { openSqliteStore } from '../../../engine/adapters/sql/sqlite-store.ts';
import { AccessService } from '../../../engine/core/access/access-service.ts';
import type { ConnectionIdentity } from '../../../engine/server/api-dispatch.ts';
import { tempDir } from '../../../test/helpers/files.ts';

const ACCESS_METHODS = [
  'listUsers',
  'addUser',
  'updateUser',
  'removeUser',
  'changePassword',
  'listGroups',
  'setGroup',
  'createToken',
  'listTokens',
  'revokeToken',
  'signOutEverywhere',
] as const satisfies readonly Exclude<keyof AccessApi, 'whoami'>[];

export interface People {
  access: AccessService;
  /** what the UI's connection serves: the engine, with the accounts (and `whoami` as `me` without a server) */
  api(engine: EngineApi): EngineApi;
  /** the connection's identity as the server sets it for `me` (every actor becomes them) */
  identity: ConnectionIdentity;
  /** adds an account directly (as the node) */
  addUser(user: NewUser): Promise<void>;
  close(): Promise<void>;
}

export async function startPeople(me: Principal): Promise<People> {
  const dir = tempDir();
  const store = await openSqliteStore(path.join(dir, 'accounts.db'));
  const access = new AccessService({
    store,
    clock: { now: () => Date.now() },
    crypto: nodeCrypto,
    nodeUser: 'node:test',
  });
  return {
    access,
    identity: { name: me.user, principal: me },
    api(engine) {
      return new Proxy(engine, {
        get(target, prop, receiver) {
          if (prop === 'whoami') return () => Promise.resolve(me);
          if ((ACCESS_METHODS as readonly (string | symbol)[]).includes(prop)) {
            const fn = access[prop as (typeof ACCESS_METHODS)[number]] as (...args: unknown[]) => unknown;
            return (...args: unknown[]) => fn.apply(access, args);
          }
          return Reflect.get(target, prop, receiver);
        },
      });
    },
    async addUser(user) {
      await access.addUser(user, 'node:test');
    },
    async close() {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
