/**
 * A start-up failure the service can explain: what failed, and what the operator can change.
 * main.ts prints it as one line instead of a stack trace.
 */
export class StartupError extends Error {
  constructor(
    readonly what: string,
    readonly fix: string,
    options?: { cause?: unknown },
  ) {
    super(`${what}. ${fix}`, options);
    this.name = 'StartupError';
  }
}

interface ErrorWithCode {
  code?: string;
  syscall?: string;
  address?: string;
  port?: number;
  message?: string;
}

/** Where start-up was heading when it failed, for the errors of libraries that know nothing of our settings. */
export interface StartupContext {
  port: number;
  host: string;
  /** Null when the embedded PostgreSQL is used. */
  databaseUrl: string | null;
}

/**
 * One line for any start-up failure: ours say what to change; the common errors of the network and
 * of PostgreSQL are put in terms of the settings; anything else keeps its own message (never `undefined`).
 */
export function describeStartupFailure(error: unknown, context: StartupContext): string {
  if (error instanceof StartupError) return error.message;
  const e = (typeof error === 'object' && error !== null ? error : {}) as ErrorWithCode;
  const message = e.message || (typeof error === 'string' && error) || (error instanceof Error && error.name) || 'no reason was given';
  if (e.syscall === 'listen' && e.code === 'EADDRINUSE') {
    return `Port ${context.port} on ${context.host} is already in use. Stop what listens there, or set PORT to a free port.`;
  }
  if (e.syscall === 'listen' && e.code === 'EACCES') {
    return `Not allowed to listen on port ${context.port} (${e.code}). Set PORT to 1024 or above, or run with the right to bind low ports.`;
  }
  if (context.databaseUrl) {
    const target = safeTarget(context.databaseUrl);
    if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH'].includes(e.code ?? '')) {
      return `Could not reach the PostgreSQL server of DATABASE_URL (${target}): ${message}. Start that server or correct DATABASE_URL; unset DATABASE_URL to use the embedded PostgreSQL.`;
    }
    // PostgreSQL's own codes: 28xxx authentication, 3D000 no such database.
    if (e.code?.startsWith('28') || e.code === '3D000') {
      return `The PostgreSQL server of DATABASE_URL (${target}) refused the connection: ${message}. Correct the user, password or database name in DATABASE_URL.`;
    }
  }
  return `${message}. ${UNEXPLAINED}`;
}

const UNEXPLAINED = 'Nothing in the configuration explains it: the detail is below; LOG_LEVEL=debug logs more.';

/** Whether the line describeStartupFailure gave needs the error's own detail (stack, fields) printed after it. */
export function needsDetail(line: string): boolean {
  return line.endsWith(UNEXPLAINED);
}

/** host:port/database of a connection string, never its password. */
function safeTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'an unreadable URL';
  }
}
