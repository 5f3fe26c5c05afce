/** See raw-spawn.mjs. */
export function spawnTrue(shell: string): Promise<void>;
export function spawnMany(shell: string, total: number, concurrency: number): Promise<void>;
