import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The example page, built into examples/use-chat/dist: `npx vite build --config examples/use-chat/vite.config.ts`. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  esbuild: { jsx: 'automatic', jsxImportSource: 'react' },
  build: { outDir: 'dist', emptyOutDir: true },
});
