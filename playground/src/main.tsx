// The playground at /playground: a request in a schema-aware editor, its live <Player> preview,
// the dry-run findings as you type, and a render followed to the finished video.
import './strict-csp';
import { Player } from '@remotion/player';
import { findViolations, Main, playerPropsFor, validateRenderRequest, type MediaInfo, type RenderRequest } from '@video-render-service/composition';
import { useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiFailure, downloadUrl, dryRun, followRender, submitRender, type DryRun, type JobView } from './api';
import { BatchTab } from './batch';
import { JsonEditor } from './editor';
import { PreviewMedia, previewOf } from './preview-media';
import { SAMPLE_REQUEST } from './sample';
import './playground.css';

/** Typing pauses this long before the request is checked again. */
const CHECK_DELAY_MS = 400;
/** The key lives in this tab only (sessionStorage): never in a cookie, never on the server. */
const KEY_STORAGE = 'vrs-playground-api-key';

interface Finding {
  severity: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  pointer: string;
}

type Parsed = { ok: true; request: RenderRequest } | { ok: false; findings: Finding[] };

function parse(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, findings: [{ severity: 'error', code: 'invalid_json', message: (error as Error).message, pointer: '' }] };
  }
  const checked = validateRenderRequest(value);
  if (!checked.ok) return { ok: false, findings: checked.errors.map((issue) => ({ severity: 'error', code: issue.type, message: withSuggestion(issue.msg, issue.suggestion), pointer: issue.pointer })) };
  return { ok: true, request: checked.value };
}

/** The schema's message, with its suggestion unless the message already gives it. */
function withSuggestion(msg: string, suggestion: string | undefined): string {
  return suggestion && !msg.includes(`"${suggestion}"`) ? `${msg} (did you mean "${suggestion}"?)` : msg;
}

interface ServerCheck {
  text: string;
  key: string;
  findings: Finding[];
  summary: string;
  media: Record<string, MediaInfo>;
}

/** What the page says of a dry run: its findings, then every source it did not check or measure, plainly. */
function serverCheckOf(outcome: DryRun, following: boolean): Omit<ServerCheck, 'text' | 'key'> {
  const findings: Finding[] = outcome.violations.map((v) => ({ severity: v.severity, code: v.code, message: v.message, pointer: v.pointer }));
  if (outcome.submit_error) {
    const pointer = typeof outcome.submit_error.details?.pointer === 'string' ? outcome.submit_error.details.pointer : '';
    findings.unshift({ severity: 'error', code: outcome.submit_error.code, message: outcome.submit_error.message, pointer });
  }
  const unchecked = outcome.sources.filter((source) => source.status === 'not_checked');
  for (const source of outcome.sources) {
    if (source.status === 'not_checked' || (source.status === 'ok' && !source.measured && source.note)) {
      findings.push({ severity: 'warning', code: 'source_not_checked', message: source.note ?? 'Not checked', pointer: source.pointer });
    }
  }
  const estimate = outcome.estimate ? `: ${outcome.estimate.frames} frames, ${outcome.estimate.render_minutes} render minutes` : '';
  let summary: string;
  if (!outcome.ok) summary = 'A render would be refused or would fail';
  else if (unchecked.length === 0) summary = `Ready to render${estimate}`;
  else summary = `No problem found, but ${unchecked.length} of ${outcome.sources.length} sources not checked${following ? ' yet: checking them' : ''}`;
  const scope = outcome.sources.length === 0 ? '' : unchecked.length === 0 ? ', sources included' : ', sources not all checked';
  return { findings, summary: `${summary} (checked by the service${scope})`, media: outcome.media };
}

/** A dry run that left sources unchecked or unmeasured for time: ask again, waiting for all of them. */
function needsFullCheck(outcome: DryRun): boolean {
  return outcome.sources.some((source) => source.status === 'not_checked' || (source.status === 'ok' && !source.measured && source.kind !== 'lut'));
}

type RenderState =
  | { phase: 'idle' }
  | { phase: 'submitting' }
  | { phase: 'running'; job: JobView }
  | { phase: 'done'; job: JobView; download: string | null }
  | { phase: 'failed'; message: string };

function App() {
  const initial = useMemo(() => JSON.stringify(SAMPLE_REQUEST, null, 2), []);
  const [text, setText] = useState(initial);
  const [checkedText, setCheckedText] = useState(initial);
  const [key, setKey] = useState(() => sessionStorage.getItem(KEY_STORAGE) ?? '');
  const [server, setServer] = useState<ServerCheck | null>(null);
  const [render, setRender] = useState<RenderState>({ phase: 'idle' });
  const [, mediaChanged] = useReducer((n: number) => n + 1, 0);
  const media = useMemo(() => new PreviewMedia(mediaChanged), []);
  const renderAbort = useRef<AbortController | null>(null);
  const [tab, setTab] = useState<'render' | 'batch'>('render');

  useEffect(() => () => media.dispose(), [media]);
  // The text and the key are checked once typing pauses: a key typed character by character
  // must not cost a dry run and a media fetch per character (they count against the rate limit).
  const [checkedKey, setCheckedKey] = useState(key);
  useEffect(() => {
    const timer = setTimeout(() => {
      setCheckedText(text);
      setCheckedKey(key);
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, key]);
  useEffect(() => {
    if (key) sessionStorage.setItem(KEY_STORAGE, key);
    else sessionStorage.removeItem(KEY_STORAGE);
  }, [key]);

  const parsed = useMemo(() => parse(checkedText), [checkedText]);
  if (parsed.ok) media.want(parsed.request, checkedKey);

  // With a key, the service's dry run: every check a submit makes (quota, plan caps, sources).
  // Sources it could not check within its few seconds are listed as such, then checked in full.
  useEffect(() => {
    if (!checkedKey || !parsed.ok) return;
    const abort = new AbortController();
    const show = (outcome: DryRun, following: boolean) => {
      if (!abort.signal.aborted) setServer({ text: checkedText, key: checkedKey, ...serverCheckOf(outcome, following) });
    };
    dryRun(checkedKey, parsed.request, abort.signal)
      .then((outcome) => {
        const more = needsFullCheck(outcome);
        show(outcome, more);
        if (more) return dryRun(checkedKey, parsed.request, abort.signal, true).then((full) => show(full, false));
      })
      .catch((error: unknown) => {
        if (abort.signal.aborted) return;
        const message = error instanceof ApiFailure ? `${error.envelope.code}: ${error.envelope.message}` : String(error);
        setServer({ text: checkedText, key: checkedKey, findings: [{ severity: 'error', code: 'dry_run_failed', message, pointer: '' }], summary: 'The dry run failed', media: {} });
      });
    return () => abort.abort();
  }, [checkedKey, parsed, checkedText]);

  const preview = parsed.ok ? previewOf(parsed.request, media, Boolean(checkedKey)) : null;
  const current = checkedKey && server?.text === checkedText && server.key === checkedKey ? server : null;
  // The lengths and sizes the service measured, as the render will, over what this browser read.
  const player = preview ? safePlayerProps(preview.request, measuredOver(preview.media, current?.media ?? {})) : null;

  let findings: Finding[];
  let summary: string;
  if (!parsed.ok) {
    findings = parsed.findings;
    summary = 'The request is invalid';
  } else if (current) {
    findings = current.findings;
    summary = current.summary;
  } else {
    findings = findViolations(parsed.request, preview?.media ?? {}).map((v) => ({ severity: v.severity, code: v.code, message: v.message, pointer: v.pointer }));
    summary = checkedKey ? 'Checking with the service…' : 'Checked in the page; type an API key for the full dry run';
  }
  const notes = preview?.notes ?? [];

  const startRender = useCallback(async () => {
    if (!parsed.ok || !key) return;
    renderAbort.current?.abort();
    const abort = new AbortController();
    renderAbort.current = abort;
    setRender({ phase: 'submitting' });
    try {
      const submitted = await submitRender(key, parsed.request);
      let last = submitted;
      setRender({ phase: 'running', job: submitted });
      await followRender(key, submitted.id, (job) => {
        last = job;
        setRender({ phase: 'running', job });
      }, abort.signal);
      if (last.status !== 'completed') {
        setRender({ phase: 'failed', message: last.error ? `${last.error.code}: ${last.error.message}` : `The render ended ${last.status}` });
        return;
      }
      const link = await downloadUrl(key, last.id).then((answer) => answer.url, () => null);
      setRender({ phase: 'done', job: last, download: link });
    } catch (error) {
      if (abort.signal.aborted) return;
      setRender({ phase: 'failed', message: error instanceof ApiFailure ? `${error.envelope.code}: ${error.envelope.message}` : String(error) });
    }
  }, [parsed, key]);

  const percent = render.phase === 'running' || render.phase === 'done' ? render.job.progress_percent : 0;
  return (
    // data-pending: typed text or key not checked yet (what the preview and findings show is older).
    <div className="playground" data-pending={text !== checkedText || key !== checkedKey}>
      <header>
        <h1>Playground</h1>
        <nav className="tabs" role="tablist">
          <button type="button" role="tab" aria-selected={tab === 'render'} onClick={() => setTab('render')} data-testid="tab-render">
            Render
          </button>
          <button type="button" role="tab" aria-selected={tab === 'batch'} onClick={() => setTab('batch')} data-testid="tab-batch">
            Batch
          </button>
        </nav>
        <label className="key">
          API key
          <input type="password" autoComplete="off" spellCheck={false} placeholder="sk_…" value={key} onChange={(e) => setKey(e.target.value.trim())} data-testid="api-key" />
        </label>
        <details className="key-help" data-testid="key-help">
          <summary>No key yet?</summary>
          <p>
            Sign up for a workspace: <code>POST /v1/signup</code> with <code>{'{"workspace_name": "…", "email": "…"}'}</code> answers with a key (
            <code>api_key.key</code>); send the 6-digit code that is mailed to you to <code>POST /v1/signup/verify</code> with that key, and it works. Without
            SMTP configured the mail is a file in the service&apos;s <code>DATA_DIR/mail/</code> folder, and the service log names it. The README&apos;s
            &quot;Try it&quot; has the commands; <a href="/docs">/docs</a> describes every call. Or ask your workspace&apos;s owner for a key
            (<code>POST /v1/api-keys</code>).
          </p>
        </details>
      </header>
      {tab === 'batch' ? <BatchTab apiKey={key} /> : null}
      <main hidden={tab !== 'render'}>
        <section className="left">
          <JsonEditor initial={initial} onChange={setText} />
          <div className="findings" data-testid="findings" aria-live="polite">
            <p className="summary">{summary}</p>
            <ul>
              {[...findings, ...notes.map((n) => ({ severity: 'info' as const, code: 'preview', message: n.message, pointer: n.pointer }))].map((f, i) => (
                <li key={i} className={f.severity}>
                  <span className="severity">{f.severity}</span> <code>{f.pointer || '/'}</code> {f.message}
                </li>
              ))}
            </ul>
          </div>
        </section>
        <section className="right">
          <h2>Preview: the composition in a Player, in this page</h2>
          <div className="preview" data-testid="preview">
            {player && 'error' in player ? <p className="error">{player.error}</p> : null}
            {player && !('error' in player) ? (
              <Player
                component={Main}
                {...player}
                inputProps={{ ...player.inputProps, sources: preview!.sources }}
                style={{ width: '100%', aspectRatio: `${player.compositionWidth} / ${player.compositionHeight}` }}
                controls
                loop
                autoPlay
                initiallyMuted
                acknowledgeRemotionLicense
              />
            ) : null}
          </div>
          <div className="render">
            <button type="button" onClick={startRender} disabled={!parsed.ok || !key || render.phase === 'submitting' || render.phase === 'running'} data-testid="render">
              Render
            </button>
            <progress max={100} value={percent} data-testid="progress" aria-label="Render progress" />
            <span className="status" data-testid="render-status">
              {render.phase === 'idle' && (key ? 'Not rendered yet' : 'Type an API key to render')}
              {render.phase === 'submitting' && 'Submitting…'}
              {render.phase === 'running' && `${render.job.status}${render.job.progress_stage ? ` (${render.job.progress_stage})` : ''}: ${percent} %`}
              {render.phase === 'done' && 'Completed: 100 %'}
              {render.phase === 'failed' && render.message}
            </span>
          </div>
          {render.phase === 'done' && render.job.output?.url ? (
            <div className="output">
              <h2>Render: the video the service made</h2>
              <video src={render.job.output.url} controls autoPlay muted loop playsInline data-testid="output-video" />
              {render.download ? (
                <a href={render.download} download data-testid="download">
                  Download ({render.job.output.width}×{render.job.output.height}, {render.job.output.duration} s)
                </a>
              ) : null}
            </div>
          ) : null}
        </section>
      </main>
    </div>
  );
}

/** For each source the page shows, the service's measurement when it has one, else the browser's. */
function measuredOver(browser: Record<string, MediaInfo>, service: Record<string, MediaInfo>): Record<string, MediaInfo> {
  return Object.fromEntries(Object.entries(browser).map(([url, info]) => [url, service[url] ? { ...info, ...service[url] } : info]));
}

/** The Player's props, or why there are none (a request the schema accepts can still fail to resolve). */
function safePlayerProps(request: RenderRequest, media: Parameters<typeof playerPropsFor>[1]) {
  try {
    return playerPropsFor(request, media);
  } catch (error) {
    return { error: `No preview: ${(error as Error).message}` };
  }
}

createRoot(document.getElementById('root')!).render(<App />);
