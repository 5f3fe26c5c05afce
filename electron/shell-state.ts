// The little the shell remembers between launches (whether the "still running in the tray" hint
// was shown; whether the person wants this laptop in the team, team-membership.ts), in a JSON file under Electron's userData. A missing or unreadable file
// is a fresh state, never an error.
import fs from 'node:fs';
import path from 'node:path';

export interface ShellState {
  closeHintShown?: boolean;
  /** the person joined the team as a worker and has not left: join again at start and on wake */
  teamJoined?: boolean;
  /** the labels the worker offered when last joined */
  teamLabels?: string[];
  /** ... and chose to take tasks without labels too */
  teamAcceptUnlabelled?: boolean;
  /** the engine also serves the API on 127.0.0.1 (Settings › Local API) */
  localApi?: boolean;
}

export class ShellStateFile {
  private readonly file: string;
  private state: ShellState;

  constructor(dir: string) {
    this.file = path.join(dir, 'shell-state.json');
    try {
      const parsed: unknown = JSON.parse(fs.readFileSync(this.file, 'utf8'));
      this.state = parsed && typeof parsed === 'object' ? (parsed as ShellState) : {};
    } catch {
      this.state = {};
    }
  }

  get(): Readonly<ShellState> {
    return this.state;
  }

  update(patch: ShellState): void {
    this.state = { ...this.state, ...patch };
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(this.file, JSON.stringify(this.state));
    } catch {
      // Forgetting a hint is no reason to disturb the person.
    }
  }
}
