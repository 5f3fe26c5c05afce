// A connection string fit to show: the password replaced by *** (as `ax settings` and the
// desktop app's Settings show it). Here so that the shell, which imports only engine/api, shares it.

export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}
