// The desktop app's secrets: the team connection (a server address, a worker token, a CA file; or the MySQL and Redis URLs with passwords) and
// the task secrets that workflows refer to (`env: { API_TOKEN: { secret: api-token } }`),
// encrypted with Electron's safeStorage in <userData>/secrets.json (mode 0600), never in the
// plain settings.json the CLI writes. The engine host gets them decrypted in its environment
// (hostEnv(), DESKTOP_SECRETS_ENV) at its start, and a changed task secret in a message
// (taskValues()): never on a command line, never logged.
//
// On Linux without a keyring safeStorage falls back to 'basic_text': a key built into Electron,
// which hides nothing from whoever can read the file. The values are still stored (as `ax` would
// store them in settings.json, 0600), and status() says plainly that they are not protected.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DESKTOP_DATABASE_KEYS,
  DESKTOP_SECRET_KEYS,
  desktopSecretProblem,
  type DesktopSecretKey,
  type DesktopSecretsStatus,
  type DesktopTaskSecret,
  shownSecret,
} from '../engine/api/desktop-bridge.ts';
import { DESKTOP_SECRETS_ENV } from '../engine/api/host-protocol.ts';
import { secretNameProblem, secretValueProblem } from '../engine/api/secrets.ts';

const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * The file's text, never through a link, and only from a regular file of this user's: another
 * local user's secrets.json (planted, or a link to theirs) could point the team connection at
 * their server. Anything else throws, and reads as no secrets.
 */
function readOwnFile(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (typeof process.getuid === 'function' && st.uid !== process.getuid()))
      throw new Error(`${file} is not this user's file`);
    return fs.readFileSync(fd, 'utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** A task secret as stored: its sealed value (base64) and when it was set. */
interface SealedTaskSecret {
  sealed: string;
  setAt: number;
}
type RawFile = Partial<Record<DesktopSecretKey, string>> & { tasks?: Record<string, SealedTaskSecret> };

/** The part of Electron's safeStorage used here. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only in Electron */
  getSelectedStorageBackend?(): string;
}

export class SecretStore {
  readonly file: string;

  constructor(
    private readonly safeStorage: SafeStorageLike,
    userData: string,
    private readonly platform: NodeJS.Platform,
    private readonly dataDir: string,
  ) {
    this.file = path.join(userData, 'secrets.json');
  }

  /** 'os' (Keychain, DPAPI), the Linux keyring's name, 'basic_text', or 'unavailable'. */
  backend(): string {
    if (!this.safeStorage.isEncryptionAvailable()) return 'unavailable';
    if (this.platform !== 'linux') return 'os';
    return this.safeStorage.getSelectedStorageBackend?.() ?? 'unknown';
  }

  status(): DesktopSecretsStatus {
    const backend = this.backend();
    const stored: DesktopSecretsStatus['stored'] = {};
    const unreadable: DesktopSecretKey[] = [];
    for (const [key, value] of Object.entries(this.decryptAll())) {
      if (value === undefined) unreadable.push(key as DesktopSecretKey);
      else stored[key as DesktopSecretKey] = shownSecret(key as DesktopSecretKey, value);
    }
    const taskSecrets: DesktopTaskSecret[] = Object.entries(this.readRaw().tasks ?? {})
      .map(([name, t]) => ({
        name,
        setAt: t.setAt,
        ...(this.open(t.sealed) === undefined && { unreadable: true as const }),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return {
      backend,
      plaintext: backend === 'basic_text',
      available: backend !== 'unavailable',
      stored,
      unreadable,
      taskSecrets,
      file: this.file,
      dataDir: this.dataDir,
    };
  }

  /** Stores task secret `name` encrypted, or forgets it (null or ''). */
  setTask(name: string, value: string | null, now = Date.now()): DesktopSecretsStatus {
    const problem = secretNameProblem(name);
    if (problem) throw new Error(problem);
    if (value !== null && typeof value !== 'string') throw new Error('a secret is a string');
    const nul = value === null ? undefined : secretValueProblem(name, value);
    if (nul) throw new Error(nul);
    const raw = this.readRaw();
    const tasks = { ...raw.tasks };
    if (value === null || value === '') delete tasks[name];
    else {
      if (!this.safeStorage.isEncryptionAvailable()) {
        throw new Error(
          `this system offers no way to encrypt secrets here: set it for the engine with "ax --data-dir ${this.dataDir} secrets set ${name}" instead`,
        );
      }
      tasks[name] = { sealed: this.safeStorage.encryptString(value).toString('base64'), setAt: now };
    }
    const existed = raw.tasks?.[name] !== undefined;
    if (Object.keys(tasks).length === 0) delete raw.tasks;
    else raw.tasks = tasks;
    this.writeRaw(raw);
    if (value === null || value === '' ? existed : true)
      this.audit(
        now,
        value === null || value === '' ? 'secret.remove' : existed ? 'secret.update' : 'secret.set',
        name,
      );
    return this.status();
  }

  /** The node's secrets audit log, shared with `ax secrets` (secrets-file.ts): who, when, which name; never a value. */
  private audit(at: number, action: string, name: string): void {
    let user = 'unknown';
    try {
      user = os.userInfo().username;
    } catch {
      // no passwd entry: the line still says what changed
    }
    const line = JSON.stringify({
      at: new Date(at).toISOString(),
      actor: `${user}@${os.hostname()} (desktop app)`,
      action,
      name,
    });
    fs.mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    // Never through a planted link (as secrets-file.ts).
    const fd = fs.openSync(
      path.join(this.dataDir, 'task-secrets.audit.log'),
      fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | NOFOLLOW,
      0o600,
    );
    try {
      fs.writeFileSync(fd, `${line}\n`);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The task secrets that can be decrypted, by name: what the engine host resolves tasks' env from. */
  taskValues(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, t] of Object.entries(this.readRaw().tasks ?? {})) {
      const value = this.open(t.sealed);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }

  /** Stores `value` encrypted under `key`, or forgets it (null or ''). */
  set(key: DesktopSecretKey, value: string | null): DesktopSecretsStatus {
    if (!DESKTOP_SECRET_KEYS.includes(key))
      throw new Error(`unknown secret "${String(key)}": known ones are ${DESKTOP_SECRET_KEYS.join(', ')}`);
    if (value !== null && typeof value !== 'string') throw new Error('a secret is a string');
    const problem =
      value === null || value === '' ? undefined : (secretValueProblem(key, value) ?? desktopSecretProblem(key, value));
    if (problem) throw new Error(problem);
    const raw = this.readRaw();
    if (value === null || value === '') delete raw[key];
    else {
      if (!this.safeStorage.isEncryptionAvailable()) {
        throw new Error(
          DESKTOP_DATABASE_KEYS.includes(key)
            ? 'this system offers no way to encrypt secrets here: give the connection string to the engine with AX_MYSQL_URL / AX_REDIS_URL instead'
            : 'this system offers no way to encrypt secrets here: join from a terminal instead, with ax serve --role worker --server URL --token-file FILE',
        );
      }
      raw[key] = this.safeStorage.encryptString(value).toString('base64');
    }
    this.writeRaw(raw);
    return this.status();
  }

  private writeRaw(raw: RawFile): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    // Written whole under a fresh name (wx: O_EXCL, no planted link followed), then renamed: a
    // reader never sees half a file, and a link at secrets.json is replaced, not written through.
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    fs.writeFileSync(tmp, `${JSON.stringify(raw, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, this.file);
  }

  private open(sealed: string): string | undefined {
    try {
      return this.safeStorage.isEncryptionAvailable()
        ? this.safeStorage.decryptString(Buffer.from(sealed, 'base64'))
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** The team connection as the running host takes it ('team-secrets'): each key that can be decrypted. */
  teamValues(): Partial<Record<DesktopSecretKey, string>> {
    const out: Partial<Record<DesktopSecretKey, string>> = {};
    for (const [key, value] of Object.entries(this.decryptAll()))
      if (value !== undefined) out[key as DesktopSecretKey] = value;
    return out;
  }

  /** The host's environment addition: the decrypted strings (and task secrets, under "tasks") in DESKTOP_SECRETS_ENV, or nothing. */
  hostEnv(): Record<string, string> {
    const plain: Partial<Record<DesktopSecretKey, string>> & { tasks?: Record<string, string> } = this.teamValues();
    const tasks = this.taskValues();
    if (Object.keys(tasks).length > 0) plain.tasks = tasks;
    return Object.keys(plain).length === 0 ? {} : { [DESKTOP_SECRETS_ENV]: JSON.stringify(plain) };
  }

  /** Each stored key's plain text; undefined when it cannot be decrypted any more. */
  private decryptAll(): Partial<Record<DesktopSecretKey, string | undefined>> {
    const raw = this.readRaw();
    const out: Partial<Record<DesktopSecretKey, string | undefined>> = {};
    for (const key of DESKTOP_SECRET_KEYS) {
      const sealed = raw[key];
      if (sealed === undefined) continue;
      out[key] = this.open(sealed);
    }
    return out;
  }

  private readRaw(): RawFile {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readOwnFile(this.file));
    } catch {
      return {};
    }
    const out: RawFile = {};
    if (typeof parsed !== 'object' || parsed === null) return out;
    for (const key of DESKTOP_SECRET_KEYS) {
      const value = (parsed as Record<string, unknown>)[key];
      if (typeof value === 'string') out[key] = value;
    }
    const tasks = (parsed as { tasks?: unknown }).tasks;
    if (typeof tasks === 'object' && tasks !== null) {
      for (const [name, t] of Object.entries(tasks as Record<string, unknown>)) {
        const { sealed, setAt } = (t ?? {}) as Partial<SealedTaskSecret>;
        if (typeof sealed === 'string')
          (out.tasks ??= {})[name] = { sealed, setAt: typeof setAt === 'number' ? setAt : 0 };
      }
    }
    return out;
  }
}
