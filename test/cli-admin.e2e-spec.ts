import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { bearer, startTestApp, TestApp } from './helpers/test-app';

const VRS = path.resolve(__dirname, '../clients/cli/bin/vrs.js');
const ADMIN_KEY = 'cli-admin-' + 'z'.repeat(40);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `vrs admin` (the built CLI, as a child process) against the running service. */
describe('vrs admin, the operator commands', () => {
  let app: TestApp;
  let folder: string;

  function vrs(args: string[], env: Record<string, string> = { VRS_ADMIN_KEY: ADMIN_KEY }): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [VRS, ...args],
        { cwd: folder, env: { PATH: process.env.PATH ?? '', HOME: folder, XDG_CONFIG_HOME: path.join(folder, 'config'), VRS_API_URL: app.url, ...env }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }
  const json = async (args: string[]) => {
    const run = await vrs([...args, '--json']);
    if (run.code !== 0) throw new Error(`vrs ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  };

  beforeAll(async () => {
    folder = mkdtempSync(path.join(tmpdir(), 'vrs-cli-admin-'));
    app = await startTestApp({ role: 'api', env: { ADMIN_API_KEY: ADMIN_KEY } });
  });
  afterAll(async () => {
    await app.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('creates, finds, reads, changes, suspends and deletes workspaces, and lists plans', async () => {
    const made = await json(['admin', 'workspaces', 'create', '--name', 'Acme', '--email', 'ops@acme.test']);
    expect(made.workspace).toMatchObject({ name: 'Acme', email: 'ops@acme.test', plan: 'free', email_verified: true });
    const id = made.workspace.id as string;
    await app.http.get('/v1/workspace').set(bearer(made.api_key.key)).expect(200);

    // Without --json: the key alone on stdout, for scripts.
    const plain = await vrs(['admin', 'workspaces', 'create', '--name', 'Beta', '--email', 'ops@beta.test']);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toMatch(/^sk_[0-9A-Za-z]+$/);
    expect(plain.stderr).toMatch(/Created ws_.*ops@beta\.test/);

    const list = await json(['admin', 'workspaces', 'list', '--email', 'acme.test']);
    expect(list.data.map((w: { id: string }) => w.id)).toEqual([id]);
    const listed = await vrs(['admin', 'workspaces', 'list', '--limit', '1']);
    expect(listed.stdout).toMatch(/^ws_\S+ {2}free {2}ops@beta\.test {2}Beta\n\(more: --cursor \S+\)\n$/);
    expect((await json(['admin', 'workspaces', 'get', id])).usage.plan.name).toBe('free');

    expect(await json(['admin', 'workspaces', 'update', id, '--name', 'Acme Inc'])).toMatchObject({ id, name: 'Acme Inc' });
    const suspended = await vrs(['admin', 'workspaces', 'suspend', id]);
    expect(suspended.stdout).toContain(`${id}  free  SUSPENDED`);
    expect((await app.http.get('/v1/workspace').set(bearer(made.api_key.key))).status).toBe(403);
    expect(await json(['admin', 'workspaces', 'unsuspend', id])).toMatchObject({ suspended: false });

    const plans = await json(['admin', 'plans']);
    expect(plans).toMatchObject({ default_plan: 'free', data: [{ name: 'free', workspaces: 2 }] });
    expect((await vrs(['admin', 'plans'])).stdout).toBe('free (default)  60 render minutes/month  2 workspaces\n');

    // Not at a terminal, delete wants --yes.
    const unconfirmed = await vrs(['admin', 'workspaces', 'delete', id]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    expect(await json(['admin', 'workspaces', 'delete', id, '--yes'])).toEqual({ id, deleted: true });
    expect((await app.http.get('/v1/workspace').set(bearer(made.api_key.key))).status).toBe(401);
  });

  it('exits 1 with the error envelope on a refusal, and 1 without or with a wrong key', async () => {
    const typo = await vrs(['admin', 'workspaces', 'update', 'ws_01JD8Z3N5Q7W9X2Y4A6B8C0D1E', '--plan', 'fre', '--json']);
    expect(typo.code).toBe(1);
    expect(JSON.parse(typo.stdout).error).toMatchObject({ code: 'invalid_request', details: { errors: [{ pointer: '/plan', suggestion: 'free' }] } });
    expect(typo.stderr).toMatch(/did you mean "free"/);
    const missing = await vrs(['admin', 'workspaces', 'get', 'ws_01JD8Z3N5Q7W9X2Y4A6B8C0D1E', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error.code).toBe('not_found');
    const noKey = await vrs(['admin', 'plans', '--json'], {});
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/VRS_ADMIN_KEY/);
    const wrong = await vrs(['admin', 'plans', '--json'], { VRS_ADMIN_KEY: 'x'.repeat(50) });
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout).error.code).toBe('unauthorized');
    const help = await vrs(['admin', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/workspaces suspend ID/);
    expect((await vrs(['--help'], {})).stdout).toMatch(/admin \.\.\./);
  });

  it('exits 2 when the service cannot be reached', async () => {
    const down = await vrs(['admin', 'plans', '--json'], { VRS_ADMIN_KEY: ADMIN_KEY, VRS_API_URL: 'http://127.0.0.1:9' });
    expect(down.code).toBe(2);
    expect(JSON.parse(down.stdout).error.code).toBe('unavailable');
  }, 60_000);
});
