import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The page of `golem serve`: built into dist/web, which the server serves as static files. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
  },
});
