/** Injection tokens for values decided before Nest boots (see main.ts and app.module.ts). */
export const DATABASE_URL = Symbol('DATABASE_URL');
export const RUNTIME_ROLE = Symbol('RUNTIME_ROLE');
