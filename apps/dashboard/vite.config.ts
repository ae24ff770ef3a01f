import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The dashboard build: hashed files under dist/assets (served by the gateway with a one-year immutable cache) and
 * dist/index.html (served no-cache for every client route). `npm run dev` proxies the API to a running gateway.
 */
export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets' },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080', '/auth': 'http://127.0.0.1:8080' },
  },
});
