// The image run as an operator runs it, with podman on this kind of machine: shared by the image
// test and `npm run bench:chunks`. Node built-ins only, so a bench (plain node) can import it too.
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const IMAGE = 'video-render-service:local';
/** The image's user (Dockerfile `useradd --uid`), which must own the data volume. */
export const IMAGE_UID = 10001;

export interface ContainerEngine {
  /** The CONTAINERS_CONF file the engine runs with (scripts/build-image.sh honours it too). */
  conf: string;
  podman(args: string[], timeout?: number): Promise<{ stdout: string; stderr: string }>;
  dispose(): void;
}

/** podman with runc, cgroupfs and no default ulimits: what it needs here (docs/decisions/0111-container-engine-settings.md). */
export function containerEngine(prefix: string): ContainerEngine {
  const conf = path.join(tmpdir(), `${prefix}-containers.conf`);
  writeFileSync(conf, '[containers]\ndefault_ulimits = []\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n');
  return {
    conf,
    podman: (args, timeout = 120_000) =>
      run('podman', ['--runtime', 'runc', ...args], { env: { ...process.env, CONTAINERS_CONF: conf }, timeout, maxBuffer: 16 * 1024 * 1024 }),
    dispose: () => rmSync(conf, { force: true }),
  };
}

/**
 * Starts one container of the image (detached, removed once stopped) on the host network with
 * `dataDir` as its /data volume; `extra` goes before the image (e.g. `--cpus=1`).
 */
export function startServiceContainer(
  engine: ContainerEngine,
  options: { name: string; role: 'api' | 'worker'; port: number; dataDir: string; env: Record<string, string>; extra?: string[] },
): Promise<unknown> {
  const env = { ...options.env, ROLE: options.role, PORT: String(options.port) };
  return engine.podman([
    'run', '-d', '--rm', '--name', options.name, '--network', 'host', '--shm-size', '512m', '-v', `${options.dataDir}:/data`,
    ...(options.extra ?? []),
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    IMAGE,
  ]);
}

/** Waits until the instance on `port` answers /v1/ready with 200. */
export async function waitReady(port: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status = await fetch(`http://127.0.0.1:${port}/v1/ready`).then((r) => r.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the instance on port ${port} was not ready within ${timeoutMs / 1000} s`);
}

/** Stops the containers as a platform does (SIGTERM, SIGKILL after `grace` s) and removes them. */
export async function stopContainers(engine: ContainerEngine, names: string[], grace = 10): Promise<void> {
  await engine.podman(['stop', '-t', String(grace), '--ignore', ...names]).catch(() => undefined);
  await engine.podman(['rm', '-f', '--ignore', ...names]).catch(() => undefined);
}
