// The playground's batch tab: a project, a CSV of its variables (header row = variable names),
// then the batch followed over Server-Sent Events to the end, with every row's output.
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiFailure, cancelBatch, followBatch, getBatch, listProjects, submitBatchCsv, type BatchRender, type BatchView, type ErrorEnvelope } from './api';

const SAMPLE_CSV = 'name,bg\nAda,#1d4ed8\nGrace,#16a34a\n';

type Phase =
  | { phase: 'idle' }
  | { phase: 'submitting' }
  | { phase: 'running'; batch: BatchView }
  | { phase: 'done'; batch: BatchView; renders: BatchRender[] }
  | { phase: 'failed'; error: ErrorEnvelope };

export function BatchTab({ apiKey }: { apiKey: string }) {
  const [projects, setProjects] = useState<{ id: string; name: string; version: number }[]>([]);
  const [projectId, setProjectId] = useState('');
  const [csv, setCsv] = useState(SAMPLE_CSV);
  const [outputFilename, setOutputFilename] = useState('{{row}}');
  const [state, setState] = useState<Phase>({ phase: 'idle' });
  const follow = useRef<AbortController | null>(null);

  useEffect(() => {
    if (!apiKey) return;
    const abort = new AbortController();
    listProjects(apiKey)
      .then((page) => {
        if (abort.signal.aborted) return;
        setProjects(page.data);
        setProjectId((current) => current || page.data[0]?.id || '');
      })
      .catch(() => setProjects([]));
    return () => abort.abort();
  }, [apiKey]);
  useEffect(() => () => follow.current?.abort(), []);

  const start = useCallback(async () => {
    follow.current?.abort();
    const abort = new AbortController();
    follow.current = abort;
    setState({ phase: 'submitting' });
    try {
      const created = await submitBatchCsv(apiKey, projectId, csv, outputFilename);
      setState({ phase: 'running', batch: created });
      await followBatch(apiKey, created.id, (batch) => setState({ phase: 'running', batch }), abort.signal);
      const ended = await getBatch(apiKey, created.id);
      setState({ phase: 'done', batch: ended, renders: ended.renders.data });
    } catch (error) {
      if (abort.signal.aborted) return;
      setState({ phase: 'failed', error: error instanceof ApiFailure ? error.envelope : { code: 'error', message: String(error) } });
    }
  }, [apiKey, projectId, csv, outputFilename]);

  const batch = state.phase === 'running' || state.phase === 'done' ? state.batch : null;
  const problems = state.phase === 'failed' ? ((state.error.details?.errors as { msg: string; pointer: string }[] | undefined) ?? []) : [];
  return (
    <main className="batch" data-testid="batch-tab">
      <section className="left batch-form">
        <label>
          Project
          <select value={projectId} onChange={(e) => setProjectId(e.target.value)} data-testid="batch-project">
            {projects.length === 0 ? <option value="">{apiKey ? 'No project yet: POST /v1/projects' : 'Type an API key'}</option> : null}
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} (v{p.version}, {p.id})
              </option>
            ))}
          </select>
        </label>
        <label>
          Rows as CSV: a header row of the project&apos;s variable names, then one line per render (at most 1,000)
          <textarea value={csv} onChange={(e) => setCsv(e.target.value)} spellCheck={false} rows={14} data-testid="batch-csv" />
        </label>
        <label>
          Or a file
          <input type="file" accept=".csv,text/csv" onChange={(e) => void e.target.files?.[0]?.text().then(setCsv)} data-testid="batch-file" />
        </label>
        <label>
          Output file name (its variables and {'{{row}}'})
          <input value={outputFilename} onChange={(e) => setOutputFilename(e.target.value)} data-testid="batch-filename" />
        </label>
        <p className="hint">
          Every row is checked before anything is queued; the whole batch must fit the month&apos;s render minutes. Identical rows render once. The same call:{' '}
          <code>POST /v1/projects/{'{id}'}/batches</code> with <code>Content-Type: text/csv</code>, or <code>vrs batch create --csv FILE --project ID --watch</code>.
        </p>
      </section>
      <section className="right">
        <div className="render">
          <button type="button" onClick={start} disabled={!apiKey || !projectId || state.phase === 'submitting' || state.phase === 'running'} data-testid="batch-start">
            Start batch
          </button>
          <progress max={100} value={batch?.progress_percent ?? 0} data-testid="batch-progress" aria-label="Batch progress" />
          {state.phase === 'running' ? (
            <button type="button" onClick={() => void cancelBatch(apiKey, state.batch.id).catch(() => undefined)} data-testid="batch-cancel">
              Cancel
            </button>
          ) : null}
        </div>
        <p className="status" data-testid="batch-status" aria-live="polite">
          {state.phase === 'idle' && (apiKey ? 'Not started' : 'Type an API key to start a batch')}
          {state.phase === 'submitting' && 'Submitting…'}
          {batch &&
            `${batch.id} ${batch.status}: ${batch.counts.completed}/${batch.row_count} completed, ${batch.counts.failed} failed, ${batch.counts.cancelled} cancelled, ${batch.counts.processing} rendering, ${batch.counts.queued} queued`}
          {state.phase === 'failed' && `${state.error.code}: ${state.error.message}`}
        </p>
        {problems.length > 0 ? (
          <ul className="error" data-testid="batch-errors">
            {problems.map((p, i) => (
              <li key={i}>
                <code>{p.pointer || '/'}</code> {p.msg}
              </li>
            ))}
          </ul>
        ) : null}
        {state.phase === 'done' ? (
          <ol className="batch-rows" data-testid="batch-rows">
            {state.renders.map((r) => (
              <li key={r.id} data-status={r.status}>
                Row {r.batch_row}: {r.status}
                {r.output?.url ? (
                  <>
                    {' '}
                    <a href={r.output.url} target="_blank" rel="noreferrer">
                      output
                    </a>
                    {r.output.reused_from ? ` (same as ${r.output.reused_from})` : ''}
                  </>
                ) : null}
                {r.error ? ` ${r.error.code}: ${r.error.message}` : ''}
              </li>
            ))}
          </ol>
        ) : null}
      </section>
    </main>
  );
}
