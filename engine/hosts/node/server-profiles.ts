// The servers a person signed in to with `ax login` (issue 25, part 4): one profile per server
// URL, {url, user, token, tokenName, ca?}, and which one is the default, in
// $XDG_CONFIG_HOME/ax/servers.json (default ~/.config/ax/servers.json). The tokens in it act as
// that person, so the file is private as the data dir's token files are (private-file.ts): mode
// 0600 in a dir of mode 0700, no link followed, and refused with the fix when another user owns
// it or could read it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';
import { readPrivateFile, writePrivateFile } from './private-file.ts';

export interface ServerProfile {
  /** the server's origin, e.g. https://scheduler.example.com:8443 */
  url: string;
  user: string;
  token: string;
  /** the token's name on the server (what `ax logout` revokes) */
  tokenName?: string;
  /** PEM of a private CA to trust for this server (ax login --ca-file) */
  ca?: string;
  /** when this profile was stored, ms */
  savedAt: number;
}

interface ProfilesFile {
  default?: string;
  servers: Record<string, ServerProfile>;
}

const POSIX = process.platform !== 'win32';

/** $XDG_CONFIG_HOME/ax, else ~/.config/ax. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.resolve(base, 'ax');
}

export const profilesFile = (env: NodeJS.ProcessEnv = process.env) => path.join(configDir(env), 'servers.json');

/** A loopback host: plain http to it keeps the token on this machine. */
function loopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * A server URL as profiles key it: its origin (https://host:port), lower case, no path. Plain
 * http only to this machine: a password or token sent over it elsewhere crosses the network in the clear.
 */
export function serverOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new AxError(
      'validation',
      `"${text}" is not a server URL: give it as https://HOST:PORT, e.g. https://scheduler.example.com:8443`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new AxError('validation', `"${text}": the server URL starts with https:// (or http:// on this machine)`);
  if (url.protocol === 'http:' && !loopbackHost(url.hostname))
    throw new AxError(
      'validation',
      `"${text}": plain http would send your password and token in the clear: use https://${url.host} (the server needs ax serve --tls-cert, or a TLS proxy)`,
    );
  return url.origin;
}

/** The config dir, made 0700 when missing; another user's, or one others can write, is refused. */
function ensureConfigDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!POSIX) return;
  const st = fs.statSync(dir);
  if (st.uid !== process.getuid?.())
    throw new AxError(
      'storage',
      `${dir} belongs to uid ${st.uid}, not to you: its tokens could be anyone's. Remove it, or chown it`,
    );
  if ((st.mode & 0o022) !== 0)
    throw new AxError(
      'storage',
      `${dir} can be written by other users (mode 0${(st.mode & 0o777).toString(8)}): they could replace your tokens. chmod 700 ${dir}`,
    );
  if ((st.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

function parse(file: string, text: string): ProfilesFile {
  try {
    const data = JSON.parse(text) as ProfilesFile;
    if (typeof data === 'object' && data !== null && typeof data.servers === 'object' && data.servers !== null)
      return data;
  } catch {
    // said below
  }
  throw new AxError(
    'storage',
    `${file} is not a servers file of ax (JSON with "servers"): remove it (rm ${file}) and sign in again with "ax login URL"`,
  );
}

export class ServerProfiles {
  readonly file: string;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.file = profilesFile(env);
  }

  private read(): ProfilesFile {
    const text = readPrivateFile(this.file);
    return text === undefined ? { servers: {} } : parse(this.file, text);
  }

  private write(data: ProfilesFile): void {
    ensureConfigDir(path.dirname(this.file));
    writePrivateFile(this.file, `${JSON.stringify(data, null, 2)}\n`);
  }

  /** The profile of a server URL, or the default one without it. */
  get(url?: string): ServerProfile | undefined {
    const data = this.read();
    const key = url === undefined ? data.default : serverOrigin(url);
    return key === undefined ? undefined : data.servers[key];
  }

  defaultUrl(): string | undefined {
    return this.read().default;
  }

  list(): { profiles: ServerProfile[]; default?: string } {
    const data = this.read();
    return { profiles: Object.values(data.servers), ...(data.default && { default: data.default }) };
  }

  /** Stores (replaces) a server's profile and makes it the default. */
  save(profile: Omit<ServerProfile, 'savedAt'>): ServerProfile {
    const data = this.read();
    const url = serverOrigin(profile.url);
    const saved: ServerProfile = { ...profile, url, savedAt: Date.now() };
    this.write({ default: url, servers: { ...data.servers, [url]: saved } });
    return saved;
  }

  /** Forgets a server; the default moves to the newest remaining profile, if any. */
  remove(url: string): boolean {
    const data = this.read();
    const key = serverOrigin(url);
    if (!data.servers[key]) return false;
    const { [key]: _gone, ...rest } = data.servers;
    const newest = Object.values(rest).sort((a, b) => b.savedAt - a.savedAt)[0];
    this.write({
      ...(data.default === key ? newest && { default: newest.url } : { default: data.default }),
      servers: rest,
    });
    return true;
  }
}
