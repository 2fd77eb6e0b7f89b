/**
 * Builds the console into ../dist as static files with relative URLs, so the engine can serve it
 * under /console from the package or from --console-assets-dir. No plugin is needed: esbuild
 * compiles the TSX (automatic JSX runtime) and graphiql's Monaco workers are bundled as files.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic' },
  worker: { format: 'es' },
  build: {
    outDir: here('../dist'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 6000,
    reportCompressedSize: false,
    rollupOptions: {
      onwarn(warning, warn) {
        // React libraries mark client components with "use client"; it means nothing in a bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
