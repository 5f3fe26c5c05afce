// The little the shell remembers between launches (today: whether the "still running in the
// tray" hint was shown), in a JSON file under Electron's userData. A missing or unreadable file
// is a fresh state, never an error.
import fs from 'node:fs';
import path from 'node:path';

export interface ShellState {
  closeHintShown?: boolean;
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
