// Accounts, sessions, API tokens and groups (issue 25; engine/api/access.ts), kept in the team
// database so every scheduler node admits the same people. Secrets are stored only as hashes:
// a password as scrypt (core/access/passwords.ts), a session id and a token as SHA-256.
import type { Role, TokenScope } from '../api/access.ts';

export interface UserRow {
  name: string;
  role: Role;
  groups: string[];
  source: 'local' | 'oidc';
  /** scrypt: "scrypt$N$r$p$SALT$HASH" (base64url), null for SSO accounts */
  passwordHash: string | null;
  disabled: boolean;
  /** failed sign-ins since the last success */
  failedSignIns: number;
  lockedUntil: number | null;
  createdAt: number;
  updatedAt: number;
  lastSignInAt: number | null;
}

export interface SessionRow {
  /** SHA-256 (hex) of the cookie's value */
  idHash: string;
  user: string;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
  address: string | null;
}

export interface TokenRow {
  name: string;
  user: string;
  /** SHA-256 (hex) of the token */
  hash: string;
  scopes: TokenScope[];
  workflow: string | null;
  workerId: string | null;
  labels: string[] | null;
  createdAt: number;
  createdBy: string;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface GroupRow {
  name: string;
  private: boolean;
}

export interface AccountStore {
  getUser(name: string): Promise<UserRow | undefined>;
  listUsers(): Promise<UserRow[]>;
  /** a conflict (AxError) when the name is taken */
  insertUser(row: UserRow): Promise<void>;
  /** false when there is no such user */
  updateUser(name: string, patch: Partial<Omit<UserRow, 'name' | 'createdAt'>>): Promise<boolean>;
  /** removes the user with their sessions and tokens; false when there is no such user */
  deleteUser(name: string): Promise<boolean>;
  insertSession(row: SessionRow): Promise<void>;
  getSession(idHash: string): Promise<SessionRow | undefined>;
  touchSession(idHash: string, at: number): Promise<void>;
  deleteSession(idHash: string): Promise<void>;
  /** ends every session of the user; how many there were */
  deleteSessionsOf(user: string): Promise<number>;
  /** a conflict when the user already has a token of that name (revoked ones included) */
  insertToken(row: TokenRow): Promise<void>;
  tokenByHash(hash: string): Promise<TokenRow | undefined>;
  /** all users' tokens without a user */
  listTokens(user?: string): Promise<TokenRow[]>;
  /** false when the user has no such token (or it was revoked already) */
  revokeToken(user: string, name: string, at: number): Promise<boolean>;
  touchToken(hash: string, at: number): Promise<void>;
  listGroups(): Promise<GroupRow[]>;
  putGroup(row: GroupRow): Promise<void>;
}
