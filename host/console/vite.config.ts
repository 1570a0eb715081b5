// The console is embedded in the weft binary and served at /console/, and CI rebuilds dist/ and
// compares it with the committed copy: so fixed file names (no content hashes), no source maps,
// one script and one stylesheet.
import { defineConfig } from 'vite';

// Where `npm run dev` sends API calls: a weft server (`weft demo --serve --listen 127.0.0.1:8099`).
const api = process.env.WEFT_URL ?? 'http://127.0.0.1:8099';

export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    modulePreload: { polyfill: false },
    rollupOptions: {
      output: {
        entryFileNames: 'assets/app.js',
        chunkFileNames: 'assets/[name].js',
        assetFileNames: (asset) =>
          (asset.names[0] ?? '').endsWith('.css') ? 'assets/app.css' : 'assets/[name][extname]',
      },
    },
  },
  server: {
    // SWF is POST / and the extension is under /v1; the app itself is under /console/.
    proxy: {
      '^/$': { target: api },
      '/v1': { target: api },
    },
  },
});
