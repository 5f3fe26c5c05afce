// Sign-in by the single-use link `ax serve` / `ax open` print: http://host/#code=CODE. The code is
// exchanged for an HttpOnly session cookie and removed from the address bar at once, so it is
// never kept in history, storage or a bookmark. Nothing about the session is readable from JS.

export type SessionState =
  | { kind: 'signed-in' }
  | { kind: 'signed-out'; reason: 'no-session' | 'code-refused' }
  | { kind: 'unreachable'; message: string };

/** the code of a sign-in link, when the page was opened with one */
export function codeFromHash(hash: string): string | undefined {
  const match = /^#code=([^&/]+)/.exec(hash);
  return match ? decodeURIComponent(match[1] as string) : undefined;
}

async function exchangeCode(code: string, fetcher: typeof fetch): Promise<boolean> {
  const res = await fetcher('/auth/session', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ code }),
    credentials: 'same-origin',
  });
  return res.ok;
}

export async function hasSession(fetcher: typeof fetch = fetch): Promise<boolean> {
  const res = await fetcher('/auth/session', { credentials: 'same-origin', cache: 'no-store' });
  return res.ok;
}

/**
 * Signs in with the code in the hash if there is one (replacing the hash with `#/` whatever the
 * answer), then checks that the session cookie is valid.
 */
export async function establishSession(fetcher: typeof fetch = fetch): Promise<SessionState> {
  try {
    const code = codeFromHash(location.hash);
    if (code !== undefined) {
      history.replaceState(null, '', `${location.pathname}${location.search}#/`);
      const accepted = await exchangeCode(code, fetcher);
      // a replayed or expired link may still meet an older valid session cookie
      if (!accepted)
        return (await hasSession(fetcher)) ? { kind: 'signed-in' } : { kind: 'signed-out', reason: 'code-refused' };
      return { kind: 'signed-in' };
    }
    return (await hasSession(fetcher)) ? { kind: 'signed-in' } : { kind: 'signed-out', reason: 'no-session' };
  } catch (error) {
    return { kind: 'unreachable', message: error instanceof Error ? error.message : String(error) };
  }
}
