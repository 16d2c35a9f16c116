import { readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { runAdmin } from './admin.js';
import { Api, Batch, Job, TERMINAL } from './api.js';
import { createApi } from './client-api.js';
import { loadSettings, saveSettings, configPath, Settings } from './config.js';
import { CliError, EXIT } from './errors.js';
import { runMcpBridge } from './mcp-bridge.js';
import { ProgressBar } from './progress.js';

const HELP = `vrs: the video rendering service from a terminal

Usage: vrs <command> [options]

Commands:
  login [--url URL] [--key KEY]          check the key and store URL and key in ${'$'}XDG_CONFIG_HOME/vrs/config.json (mode 0600)
  validate FILE                          free dry run of a render request, its sources checked: ok, violations, the error a submit would get
  render FILE [--wait] [--out PATH]      submit a render request (JSON file, - for stdin); --out waits and downloads
         [--idempotency-key KEY]
  preview FILE --time T --out PNG        draw one frame (never metered) and save it
         [--scale S]
  status ID [--watch]                    a render_… or task_… job; --watch follows it to the end
  cancel ID                              cancel a queued or running job
  upload FILE|URL [--content-type TYPE]  upload a local file, or have the service fetch a public URL;
                                         waits until the asset is stored and probed, prints its source_url
  transcribe FILE|URL [--wait]           transcribe speech (a local file is uploaded first)
         [--captions srt|vtt] [--out PATH]   with --captions: wait, then print or save captions
  projects list
  projects get ID [--full]
  projects create FILE --name NAME       FILE: a render request with {{variables}}
         [--var NAME=VALUE ...]          default values of variables
  projects patch ID OPS_FILE             JSON Patch operations, or {base_version, ops}
         [--base-version N]
  projects render ID [--var NAME=VALUE ...] [--wait] [--out PATH]
  batch create --csv FILE --project ID   render the project once per CSV row (header row = variable names)
         [--output-filename TEMPLATE] [--watch] [--idempotency-key KEY]   e.g. "{{name}}-{{row}}"
  batch status ID [--watch]              a batch's rows per state; --watch follows it to the end
  batch cancel ID                        cancel the rows still queued (rendering ones finish)
  mcp                                    an MCP server on stdio that forwards to the service's /mcp
  admin ...                              the operator's commands (VRS_ADMIN_KEY): vrs admin --help

Options:
  --json        print exactly one JSON document on stdout (also for errors); messages go to stderr
  --help, -h    this text

Configuration: VRS_API_URL and VRS_API_KEY override the config file (default URL http://localhost:8080).

Exit codes:
  0  success
  1  permanent failure: the service refused the request (4xx), or the job failed or was cancelled
  2  transient failure: network error, 5xx, or 429 after its retries; trying again later may work
`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  wait: { type: 'boolean' },
  watch: { type: 'boolean' },
  full: { type: 'boolean' },
  out: { type: 'string' },
  time: { type: 'string' },
  scale: { type: 'string' },
  url: { type: 'string' },
  key: { type: 'string' },
  name: { type: 'string' },
  var: { type: 'string', multiple: true },
  captions: { type: 'string' },
  'content-type': { type: 'string' },
  'idempotency-key': { type: 'string' },
  'base-version': { type: 'string' },
  csv: { type: 'string' },
  project: { type: 'string' },
  'output-filename': { type: 'string' },
} satisfies ParseArgsConfig['options'];

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

interface Context {
  api: Api;
  settings: Settings;
  values: Values;
  json: boolean;
  progress: ProgressBar;
}

/** Human messages: stderr, never mixed into the one JSON document of --json. */
function say(message: string): void {
  process.stderr.write(`${message}\n`);
}

export async function main(argv: string[]): Promise<number> {
  // The operator's commands have their own options (admin.ts).
  const first = argv.findIndex((arg) => !arg.startsWith('-'));
  if (argv[first] === 'admin') return runAdmin([...argv.slice(0, first), ...argv.slice(first + 1)]);
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    return fail(new CliError(`${(error as Error).message}\n\n${HELP}`, 1), argv.includes('--json'));
  }
  const { values, positionals } = parsed;
  const json = values.json === true;
  const [command, ...args] = positionals;
  if (values.help || !command) {
    process.stdout.write(HELP);
    return command || values.help ? EXIT.ok : EXIT.permanent;
  }
  try {
    const settings = await loadSettings();
    if (values.url) settings.url = values.url.replace(/\/+$/, '');
    if (values.key) settings.key = values.key;
    if (command === 'mcp') {
      await runMcpBridge(settings, (file, type) => createApi(settings).uploadFile(file, type) as unknown as Promise<Record<string, unknown>>);
      return EXIT.ok;
    }
    if (command !== 'login' && !settings.key) throw new CliError('No API key: run `vrs login` or set VRS_API_KEY', 1);
    const context: Context = { api: createApi(settings), settings, values, json, progress: ProgressBar.forTerminal(json) };
    const result = await run(command, args, context);
    print(result.body, json, result.line);
    return result.exitCode ?? EXIT.ok;
  } catch (error) {
    return fail(error, json);
  }
}

interface Outcome {
  body: unknown;
  /** What a person at a terminal sees on stdout without --json (an id, a URL, a path). */
  line: string;
  exitCode?: number;
}

async function run(command: string, args: string[], c: Context): Promise<Outcome> {
  switch (command) {
    case 'login':
      return login(c);
    case 'validate': {
      // Sources checked in full, as a submit checks them: a command has time to wait for them.
      const out = await c.api.preview({ ...(await readJson(need(args[0], 'FILE'))), preview: { mode: 'dry_run', check_sources: true } });
      const ok = out.ok === true;
      if (!ok) say(describeDryRun(out));
      return { body: out, line: ok ? 'ok' : 'not ok', exitCode: ok ? EXIT.ok : EXIT.permanent };
    }
    case 'render': {
      const body = await readJson(need(args[0], 'FILE'));
      const submitted = await c.api.submitRender(body, c.values['idempotency-key']);
      reportViolations(submitted.violations);
      return finish(c, submitted, c.values.wait === true || c.values.out !== undefined);
    }
    case 'preview': {
      const time = Number(need(c.values.time, '--time'));
      const out = need(c.values.out, '--out');
      const body = await readJson(need(args[0], 'FILE'));
      const preview = { mode: 'frame', time, ...(c.values.scale ? { scale: Number(c.values.scale) } : {}), format: out.endsWith('.jpg') ? 'jpg' : 'png' };
      const job = (await c.api.preview({ ...body, preview })) as unknown as Job;
      return finish(c, job, true);
    }
    case 'status': {
      const job = await c.api.getJob(need(args[0], 'ID'));
      return finish(c, job, c.values.watch === true);
    }
    case 'cancel': {
      const job = await c.api.cancelJob(need(args[0], 'ID'));
      return { body: job, line: `${job.id} ${job.status}` };
    }
    case 'upload': {
      const source = need(args[0], 'FILE|URL');
      if (/^https?:\/\//.test(source)) {
        const asset = await c.api.uploadUrl(source, c.values['idempotency-key']);
        say(`Stored ${String(asset.size_bytes)} bytes (${asset.content_type}) from ${source}`);
        return { body: asset, line: asset.source_url };
      }
      const asset = await c.api.uploadFile(source, c.values['content-type']);
      say(`Uploaded ${asset.bytes} bytes (${asset.content_type})`);
      return { body: asset, line: asset.source_url };
    }
    case 'transcribe':
      return transcribe(args, c);
    case 'projects':
      return projects(args, c);
    case 'batch':
      return batch(args, c);
    default:
      throw new CliError(`Unknown command "${command}"\n\n${HELP}`, 1);
  }
}

async function login(c: Context): Promise<Outcome> {
  let key = c.settings.key;
  if (!c.values.key && process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    key = (await rl.question(`API key for ${c.settings.url}${key ? ' (Enter keeps the current one)' : ''}: `)).trim() || key;
    rl.close();
  }
  if (!key) throw new CliError('Give the key with --key, VRS_API_KEY or at the prompt', 1);
  const settings = { url: c.settings.url, key };
  const workspace = await createApi(settings).workspace();
  const file = await saveSettings(settings);
  say(`Logged in to ${settings.url} as workspace ${String(workspace.name ?? workspace.id)}; saved ${file}`);
  return { body: { url: settings.url, config_path: file, workspace }, line: file };
}

async function transcribe(args: string[], c: Context): Promise<Outcome> {
  const source = need(args[0], 'FILE|URL');
  const captions = c.values.captions;
  if (captions !== undefined && captions !== 'srt' && captions !== 'vtt') throw new CliError('--captions is srt or vtt', 1);
  let sourceUrl = source;
  if (!/^https?:\/\//.test(source)) {
    await stat(source).catch(() => {
      throw new CliError(`${source} is neither a URL nor a readable file`, 1);
    });
    sourceUrl = (await c.api.uploadFile(source)).source_url;
    say(`Uploaded ${source}`);
  }
  const submitted = await c.api.transcribe({ source_url: sourceUrl });
  if (!captions) return finish(c, submitted, c.values.wait === true);
  const done = await follow(c, submitted);
  if (done.status !== 'completed') return finished(c, done);
  const text = await c.api.captions(done.id, captions);
  if (c.values.out) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(c.values.out, text);
    return { body: { ...done, captions_path: path.resolve(c.values.out) }, line: path.resolve(c.values.out) };
  }
  return { body: { ...done, captions: text }, line: text.trimEnd() };
}

async function projects(args: string[], c: Context): Promise<Outcome> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const page = await c.api.listProjects();
      const rows = (page.data as { id: string; name: string; version: number }[]) ?? [];
      return { body: page, line: rows.map((p) => `${p.id}  v${p.version}  ${p.name}`).join('\n') };
    }
    case 'get': {
      const project = await c.api.getProject(need(rest[0], 'ID'), c.values.full === true);
      return { body: project, line: JSON.stringify(project, null, 2) };
    }
    case 'create': {
      const request = await readJson(need(rest[0], 'FILE'));
      const project = await c.api.createProject({ name: need(c.values.name, '--name'), render_request: request, ...variables(c) });
      return { body: project, line: String(project.id) };
    }
    case 'patch': {
      const ops = await readJson(need(rest[1], 'OPS_FILE'));
      const body = Array.isArray(ops) ? { ops } : ops;
      if (c.values['base-version'] !== undefined) (body as Record<string, unknown>).base_version = Number(c.values['base-version']);
      const project = await c.api.patchProject(need(rest[0], 'ID'), body);
      return { body: project, line: `${String(project.id)} v${String(project.version)}` };
    }
    case 'render': {
      const submitted = await c.api.renderProject(need(rest[0], 'ID'), variables(c));
      reportViolations(submitted.violations);
      return finish(c, submitted, c.values.wait === true || c.values.out !== undefined);
    }
    default:
      throw new CliError(`projects: use list, get, create, patch or render\n\n${HELP}`, 1);
  }
}

async function batch(args: string[], c: Context): Promise<Outcome> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      const file = need(c.values.csv, '--csv');
      const csv = await readFile(file).catch((error: Error) => {
        throw new CliError(`Cannot read ${file}: ${error.message}`, 1);
      });
      const created = await c.api.createBatchCsv(need(c.values.project ?? rest[0], '--project'), csv, {
        output_filename: c.values['output-filename'],
        idempotencyKey: c.values['idempotency-key'],
      });
      say(`Batch ${created.id}: ${created.row_count} rows`);
      return batchOutcome(c, c.values.watch === true ? await followBatch(c, created.id) : created);
    }
    case 'status': {
      const id = need(rest[0], 'ID');
      return batchOutcome(c, c.values.watch === true ? await followBatch(c, id) : await c.api.getBatch(id));
    }
    case 'cancel': {
      const cancelled = await c.api.cancelBatch(need(rest[0], 'ID'));
      return { body: cancelled, line: `${cancelled.id} ${cancelled.status}: ${describeCounts(cancelled)}` };
    }
    default:
      throw new CliError(`batch: use create, status or cancel\n\n${HELP}`, 1);
  }
}

/** Polls the batch until every row has ended, drawing its progress. */
async function followBatch(c: Context, id: string): Promise<Batch> {
  let current = await c.api.getBatch(id);
  while (!current.completed_at) {
    c.progress.update(current.progress_percent, `${current.id} ${describeCounts(current)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    current = await c.api.getBatch(id);
  }
  c.progress.update(100, `${current.id} ${current.status}`);
  c.progress.done();
  return current;
}

/** An ended batch with failed or cancelled rows exits 1, as a failed render does. */
function batchOutcome(c: Context, current: Batch): Outcome {
  const line = `${current.id} ${current.status}: ${describeCounts(current)}`;
  const bad = current.completed_at !== null && (current.counts.failed > 0 || current.counts.cancelled > 0);
  if (bad) say(line);
  return { body: current, line, exitCode: bad ? EXIT.permanent : EXIT.ok };
}

function describeCounts(current: Batch): string {
  const { counts } = current;
  return `${counts.completed}/${current.row_count} completed, ${counts.failed} failed, ${counts.cancelled} cancelled, ${counts.processing} rendering, ${counts.queued} queued`;
}

/** `--var a=b --var c=d` as `{variables: {a: "b", c: "d"}}`; a value that parses as JSON is taken as JSON. */
function variables(c: Context): { variables?: Record<string, unknown> } {
  const entries = (c.values.var ?? []).map((item) => {
    const at = item.indexOf('=');
    if (at <= 0) throw new CliError(`--var takes NAME=VALUE (got "${item}")`, 1);
    const raw = item.slice(at + 1);
    return [item.slice(0, at), parseLoose(raw)] as const;
  });
  return entries.length ? { variables: Object.fromEntries(entries) } : {};
}

function parseLoose(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Follows a job to its end when asked, downloads it with --out, and maps its final status to the exit code. */
async function finish(c: Context, job: Job, wait: boolean): Promise<Outcome> {
  if (!wait || TERMINAL.includes(job.status)) return finished(c, job);
  return finished(c, await follow(c, job));
}

async function finished(c: Context, job: Job): Promise<Outcome> {
  if (job.status === 'failed' || job.status === 'cancelled') {
    const reason = job.error ? `${job.error.code}: ${job.error.message}` : job.status;
    say(`${job.id} ${job.status}: ${reason}`);
    return { body: job, line: `${job.id} ${job.status}`, exitCode: EXIT.permanent };
  }
  if (job.status === 'completed' && job.kind === 'render') {
    const url = await c.api.downloadUrl(job.id);
    if (c.values.out) {
      const size = await c.api.download(job.id, c.values.out);
      const file = path.resolve(c.values.out);
      say(`Saved ${file} (${size} bytes)`);
      return { body: { ...job, download_url: url, output_path: file }, line: file };
    }
    return { body: { ...job, download_url: url }, line: url };
  }
  return { body: job, line: `${job.id} ${job.status}${job.status === 'completed' ? '' : ` ${job.progress_percent}%`}` };
}

async function follow(c: Context, first: Job): Promise<Job> {
  let job = first;
  while (!TERMINAL.includes(job.status)) {
    c.progress.update(job.progress_percent, `${job.id} ${job.status}${job.progress_stage ? ` (${job.progress_stage})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    job = await c.api.getJob(job.id);
  }
  c.progress.update(100, `${job.id} ${job.status}`);
  c.progress.done();
  return job;
}

function reportViolations(violations: unknown[] | undefined): void {
  for (const v of (violations ?? []) as { severity?: string; code?: string; message?: string; pointer?: string }[]) {
    say(`${v.severity ?? 'info'}: ${v.message ?? v.code}${v.pointer ? ` (at ${v.pointer})` : ''}`);
  }
}

function describeDryRun(out: Record<string, unknown>): string {
  const lines: string[] = [];
  const submitError = out.submit_error as { code: string; message: string; details?: { errors?: { pointer: string; msg: string; suggestion?: string }[] } } | null;
  if (submitError) {
    lines.push(`${submitError.code}: ${submitError.message}`);
    for (const e of notInMessage(submitError.message, submitError.details?.errors ?? [])) lines.push(`  ${e.pointer || '/'}: ${withSuggestion(e.msg, e.suggestion)}`);
  }
  for (const v of (out.violations as { severity: string; message: string; pointer?: string }[]) ?? []) lines.push(`${v.severity}: ${v.message}${v.pointer ? ` (at ${v.pointer})` : ''}`);
  return lines.join('\n');
}

async function readJson(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`, 1);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new CliError(`${file} is not JSON: ${(error as Error).message}`, 1);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function need<T>(value: T | undefined, what: string): T {
  if (value === undefined || value === '') throw new CliError(`Missing ${what}; see vrs --help`, 1);
  return value;
}

function print(body: unknown, json: boolean, line: string): void {
  if (json) process.stdout.write(JSON.stringify(body) + '\n');
  else if (line) process.stdout.write(line + '\n');
}

function fail(error: unknown, json: boolean): number {
  const cli = error instanceof CliError ? error : new CliError((error as Error)?.message ?? String(error), 2);
  const envelope = cli.envelope ?? { error: { code: cli.exitCode === 2 ? 'unavailable' : 'invalid_request', message: cli.message } };
  if (json) process.stdout.write(JSON.stringify(envelope) + '\n');
  say(`vrs: ${cli.message}`);
  const items = (envelope.error.details?.errors as { pointer: string; msg: string; suggestion?: string }[] | undefined) ?? [];
  for (const item of notInMessage(cli.message, items)) say(`  ${item.pointer || '/'}: ${withSuggestion(item.msg, item.suggestion)}`);
  return cli.exitCode;
}

/** The API's message already states the first problem (with its pointer): the list goes on from there. */
function notInMessage<T extends { msg: string }>(message: string, items: T[]): T[] {
  return items.filter((item, index) => !(index === 0 && typeof item.msg === 'string' && message.includes(item.msg)));
}

/** The API's message, with its suggestion unless the message already gives it. */
function withSuggestion(msg: string, suggestion: string | undefined): string {
  return suggestion && !msg.includes(`"${suggestion}"`) ? `${msg} (did you mean "${suggestion}"?)` : msg;
}

export { configPath };
