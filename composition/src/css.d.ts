// CSS side-effect imports (fonts.ts) are handled by the bundler.
declare module '*.css';
