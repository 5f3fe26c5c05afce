// A connection string fit to show: the password replaced by *** (as `ax settings` and the
// desktop app's Settings show it). Here so that the shell, which imports only engine/api, shares it.

export function maskUrl(url: string): string {
  // a list of URLs (a Redis Cluster's seeds): each one masked
  if (/,\s*\w+:\/\//.test(url))
    return url
      .split(/,(?=\s*\w+:\/\/)/)
      .map(maskUrl)
      .join(',');
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
  }
}
