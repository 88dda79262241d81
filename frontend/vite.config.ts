/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// base './' keeps asset URLs relative: the same build is served at
// /dashboard/ by the Go server and at / inside the Wails window.
export default defineConfig({
  base: './',
  plugins: [svelte()],
  build: {
    outDir: 'dist/app',
    emptyOutDir: true,
  },
  server: {
    // `npm run dev` against a locally running hyatlas server.
    proxy: { '/api': 'http://127.0.0.1:19528' },
  },
  test: {
    include: ['src/**/*.test.ts'],
    environment: 'node',
  },
});
