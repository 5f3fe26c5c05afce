// Where the built UI is: dist/ui of the package this code runs from (the bundled CLI in dist/,
// or the TypeScript sources under engine/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function uiDir(): string | undefined {
  if (process.env.AX_UI_DIR) return path.resolve(process.env.AX_UI_DIR);
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'engine')))
      return path.join(dir, 'dist', 'ui');
    if (path.dirname(dir) === dir) return undefined;
  }
}
