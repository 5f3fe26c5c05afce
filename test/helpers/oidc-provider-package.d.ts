// oidc-provider 9 ships no types (and @types/oidc-provider follows 8): the little the SSO tests use.
declare module 'oidc-provider' {
  import type http from 'node:http';

  export interface Grant {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }
  export interface ProviderContext {
    oidc: {
      result?: { consent?: { grantId?: string } };
      session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
      client?: { clientId: string };
      provider: {
        Grant: {
          new (init: { clientId?: string; accountId?: string }): Grant;
          find(id: string): Promise<Grant | undefined>;
        };
      };
    };
  }
  export interface Account {
    accountId: string;
    claims(): Promise<Record<string, unknown>>;
  }
  export interface Configuration {
    clients?: Record<string, unknown>[];
    pkce?: { required?: () => boolean };
    scopes?: string[];
    claims?: Record<string, string[]>;
    cookies?: { keys?: string[] };
    ttl?: Record<string, number>;
    features?: Record<string, { enabled: boolean }>;
    findAccount?: (ctx: ProviderContext, sub: string) => Promise<Account | undefined>;
    loadExistingGrant?: (ctx: ProviderContext) => Promise<Grant | undefined>;
  }
  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void;
  }
}
