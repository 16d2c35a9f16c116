import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PROJECT_ROOT } from '../src/config/paths';

/**
 * The README's commands leave the work tree clean: the npm step of scripts/install.sh (and so of
 * scripts/start.sh and scripts/test.sh) must not rewrite package-lock.json. It runs here on a git
 * copy of the tracked files with --package-lock-only: npm resolves the whole tree against the
 * registry and writes the lock exactly as a real install would, without downloading or unpacking
 * anything (seconds instead of minutes). scripts/check-fresh-install.sh checks the same after the
 * real install of a fresh copy with npm 12.
 */
describe('the install leaves the work tree clean', () => {
  const copy = mkdtempSync(path.join(tmpdir(), 'vrs-clean-install-'));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('keeps package-lock.json as committed', () => {
    // The tracked files as they are in the working tree (uncommitted edits included), committed in the copy.
    const tar = spawnSync('bash', ['-c', `git ls-files -z | tar -c --null -T - | tar -x -C ${JSON.stringify(copy)}`], { cwd: PROJECT_ROOT });
    expect(tar.status).toBe(0);
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.com', ...args], { cwd: copy, encoding: 'utf8' });
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'tracked files');

    const install = spawnSync('bash', ['scripts/npm-install.sh', '--package-lock-only'], { cwd: copy, encoding: 'utf8' });
    expect({ status: install.status, output: install.status === 0 ? '' : install.stdout + install.stderr }).toEqual({ status: 0, output: '' });
    expect(git('status', '--porcelain')).toBe('');
  });
});
