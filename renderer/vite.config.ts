// The UI is built into dist/ui at install time; `ax serve` serves it. Relative asset paths so the
// same build works from `ax serve` and, later, from the desktop app's file origin.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  build: {
    outDir: path.join(here, '..', 'dist', 'ui'),
    emptyOutDir: true,
    chunkSizeWarningLimit: 4000,
    reportCompressedSize: false,
  },
  worker: { format: 'es' },
});
