import { defineConfig } from 'vite';

// JSX with React's automatic runtime (Vite's built-in transform); no plugin needed for a build.
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic' } },
});
