// The exit codes of `ax` by error code (README: "The `ax` command"): 0 ok; 1 a run failed or an
// internal error; 2 bad input; 3 not found; 4 conflict (another engine, a locked database);
// 5 engine unreachable; 6 the data dir or its database needs a person (read-only, not a
// database, from a newer AX, a file where the dir should be, deleted or replaced while running);
// 7 this runtime cannot run AX as installed (no SQLite driver loads: another Node, a rebuild);
// 8 refused: the role, token scope or group does not allow it; 9 not signed in (ax login).
export const EXIT = {
  validation: 2,
  not_found: 3,
  conflict: 4,
  unavailable: 5,
  storage: 6,
  environment: 7,
  forbidden: 8,
  unauthenticated: 9,
  internal: 1,
} as const satisfies Record<string, number>;
