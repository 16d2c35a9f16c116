import { createInterface } from 'node:readline/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadSettings } from './config.js';
import { CliError, ErrorEnvelope, EXIT, exitCodeForStatus } from './errors.js';

export const ADMIN_HELP = `vrs admin: the operator's commands (the service's /v1/admin/ API)

Usage: vrs admin <command> [options]

Commands:
  workspaces list [--email TEXT] [--plan NAME]     workspaces, newest first; --email matches part of the address
        [--suspended true|false] [--limit N] [--cursor C]
  workspaces get ID                                one workspace with this month's usage
  workspaces create --name NAME --email EMAIL      a verified workspace and its first key (printed once, no mail)
        [--plan NAME]
  workspaces update ID [--plan NAME] [--name NAME] change plan or name
  workspaces suspend ID                            refuse its keys (403), cancel its queued jobs
  workspaces unsuspend ID
  workspaces delete ID [--yes]                     delete it with all its data (asks unless --yes)
  plans                                            the plans, the default and how many workspaces each has

Options:
  --json        print exactly one JSON document on stdout (also for errors); messages go to stderr
  --help, -h    this text

Configuration: VRS_ADMIN_KEY (the service's ADMIN_API_KEY, required); VRS_API_URL or the config file
of \`vrs login\` for the URL. Exit codes as vrs: 0 success, 1 permanent failure, 2 transient failure.
`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  yes: { type: 'boolean' },
  email: { type: 'string' },
  plan: { type: 'string' },
  name: { type: 'string' },
  suspended: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
} satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

interface Outcome {
  body: unknown;
  line: string;
}

/** Retries of a 429 or 503 (and of an unreachable service) before it counts as transient (exit 2). */
const RETRIES = 3;

class AdminClient {
  constructor(
    private readonly url: string,
    private readonly key: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<unknown> {
    for (let attempt = 0; ; attempt += 1) {
      let res: Response;
      try {
        res = await fetch(this.url + path, {
          method,
          headers: { Authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        if (attempt < RETRIES) {
          await pause(2 ** attempt);
          continue;
        }
        throw new CliError(`Cannot reach the service: ${cause ?? (error as Error).message}`, EXIT.transient, { error: { code: 'unavailable', message: 'Cannot reach the service' } });
      }
      if ((res.status === 429 || res.status === 503) && attempt < RETRIES) {
        const wait = Math.min(10, Number(res.headers.get('retry-after')) || 2 ** attempt);
        process.stderr.write(`vrs: ${res.status}, retrying in ${wait} s\n`);
        await pause(wait);
        continue;
      }
      const text = await res.text();
      const json = text ? (JSON.parse(text) as unknown) : null;
      if (res.ok) return json;
      const envelope = (json as ErrorEnvelope | null)?.error ? (json as ErrorEnvelope) : { error: { code: 'internal', message: `HTTP ${res.status}` } };
      throw new CliError(`${res.status} ${envelope.error.code}: ${envelope.error.message}`, exitCodeForStatus(res.status), envelope);
    }
  }
}

function pause(seconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, seconds * 1000));
}

/** `vrs admin …`: argv without the word `admin`. */
export async function runAdmin(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return fail(new CliError(`${(error as Error).message}\n\n${ADMIN_HELP}`, EXIT.permanent), argv.includes('--json'));
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  if (values.help || positionals.length === 0) {
    process.stdout.write(ADMIN_HELP);
    return values.help ? EXIT.ok : EXIT.permanent;
  }
  try {
    const key = process.env.VRS_ADMIN_KEY?.trim();
    if (!key) throw new CliError("No admin key: set VRS_ADMIN_KEY to the service's ADMIN_API_KEY", EXIT.permanent);
    const client = new AdminClient((await loadSettings()).url, key);
    const outcome = await run(client, positionals, values);
    if (json) process.stdout.write(JSON.stringify(outcome.body) + '\n');
    else if (outcome.line) process.stdout.write(outcome.line + '\n');
    return EXIT.ok;
  } catch (error) {
    return fail(error, json);
  }
}

async function run(client: AdminClient, [group, sub, id]: string[], values: Values): Promise<Outcome> {
  if (group === 'plans') {
    const plans = (await client.call('GET', '/v1/admin/plans')) as { data: { name: string; default: boolean; workspaces: number; render_minutes_per_month: number | null }[] };
    const line = plans.data
      .map((p) => `${p.name}${p.default ? ' (default)' : ''}  ${p.render_minutes_per_month ?? 'unlimited'} render minutes/month  ${p.workspaces} workspaces`)
      .join('\n');
    return { body: plans, line };
  }
  if (group !== 'workspaces') throw new CliError(`Unknown admin command "${group}"\n\n${ADMIN_HELP}`, EXIT.permanent);
  const path = (workspaceId: string) => `/v1/admin/workspaces/${encodeURIComponent(workspaceId)}`;
  switch (sub) {
    case 'list': {
      const query = new URLSearchParams();
      for (const name of ['email', 'plan', 'suspended', 'limit', 'cursor'] as const) if (values[name] !== undefined) query.set(name, String(values[name]));
      const page = (await client.call('GET', `/v1/admin/workspaces${query.size ? `?${query}` : ''}`)) as { data: WorkspaceRow[]; next_cursor: string | null };
      const rows = page.data.map(describe);
      if (page.next_cursor) rows.push(`(more: --cursor ${page.next_cursor})`);
      return { body: page, line: rows.join('\n') };
    }
    case 'get': {
      const workspace = await client.call('GET', path(need(id, 'ID')));
      return { body: workspace, line: JSON.stringify(workspace, null, 2) };
    }
    case 'create': {
      const body = { name: need(values.name, '--name'), email: need(values.email, '--email'), ...(values.plan ? { plan: values.plan } : {}) };
      const made = (await client.call('POST', '/v1/admin/workspaces', body)) as { workspace: WorkspaceRow; api_key: { key: string } };
      process.stderr.write(`Created ${describe(made.workspace)}; its key is shown only now\n`);
      return { body: made, line: made.api_key.key };
    }
    case 'update':
    case 'suspend':
    case 'unsuspend': {
      const changes =
        sub === 'update' ? { ...(values.plan ? { plan: values.plan } : {}), ...(values.name ? { name: values.name } : {}) } : { suspended: sub === 'suspend' };
      if (Object.keys(changes).length === 0) throw new CliError('update: give --plan, --name or both', EXIT.permanent);
      const workspace = (await client.call('PATCH', path(need(id, 'ID')), changes)) as WorkspaceRow;
      return { body: workspace, line: describe(workspace) };
    }
    case 'delete': {
      const workspaceId = need(id, 'ID');
      if (!values.yes) await confirm(`Delete workspace ${workspaceId} with all its renders, files and keys? Type its id to confirm: `, workspaceId);
      await client.call('DELETE', path(workspaceId));
      return { body: { id: workspaceId, deleted: true }, line: `${workspaceId} deleted` };
    }
    default:
      throw new CliError(`workspaces: use list, get, create, update, suspend, unsuspend or delete\n\n${ADMIN_HELP}`, EXIT.permanent);
  }
}

interface WorkspaceRow {
  id: string;
  name: string;
  email: string | null;
  plan: string;
  suspended: boolean;
}

function describe(w: WorkspaceRow): string {
  return `${w.id}  ${w.plan}${w.suspended ? '  SUSPENDED' : ''}  ${w.email ?? '-'}  ${w.name}`;
}

async function confirm(question: string, expected: string): Promise<void> {
  if (!process.stdin.isTTY) throw new CliError('delete asks for confirmation: pass --yes when not at a terminal', EXIT.permanent);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const answer = (await rl.question(question)).trim();
  rl.close();
  if (answer !== expected) throw new CliError('Not confirmed; nothing was deleted', EXIT.permanent);
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined || value === '') throw new CliError(`Missing ${what}; see vrs admin --help`, EXIT.permanent);
  return value;
}

function fail(error: unknown, json: boolean): number {
  const cli = error instanceof CliError ? error : new CliError((error as Error)?.message ?? String(error), EXIT.transient);
  const envelope = cli.envelope ?? { error: { code: cli.exitCode === EXIT.transient ? 'unavailable' : 'invalid_request', message: cli.message } };
  if (json) process.stdout.write(JSON.stringify(envelope) + '\n');
  process.stderr.write(`vrs: ${cli.message}\n`);
  const items = (envelope.error.details?.errors as { pointer: string; msg: string; suggestion?: string }[] | undefined) ?? [];
  for (const item of items) process.stderr.write(`  ${item.pointer || '/'}: ${item.msg}${item.suggestion ? ` (did you mean "${item.suggestion}"?)` : ''}\n`);
  return cli.exitCode;
}
