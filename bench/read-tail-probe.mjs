// Loaded into the service by bench/read-tail.mts with READ_TAIL_PROBE=1 (`node --import`): times,
// per second of the service's life, what a request can wait on: the HTTP request inside the
// process, the wait for a pooled PostgreSQL connection (and how many the pools hold), each
// statement, the event loop's delay and GC pauses. Appends one JSON line a second to
// READ_TAIL_PROBE_FILE. Nothing here changes what the service does.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';

const require = createRequire(`${process.cwd()}/package.json`);
// The `all` role's worker process (record 0129) inherits the flag and the variable: it writes beside.
const file = process.env.READ_TAIL_PROBE_FILE && (process.env.VRS_WORKER_PARENT_PID ? `${process.env.READ_TAIL_PROBE_FILE}.worker-process` : process.env.READ_TAIL_PROBE_FILE);

const fresh = () => ({ http: [], acquire: [], query: [], gc: [], gcMajor: [], created: 0, waitingMax: 0, poolMax: 0 });
let second = fresh();

const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    second.gc.push(entry.duration);
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) second.gcMajor.push(entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

const inFlight = new WeakMap();
subscribe('http.server.request.start', ({ request }) => inFlight.set(request, performance.now()));
subscribe('http.server.response.finish', ({ request }) => {
  const begun = inFlight.get(request);
  if (begun !== undefined) second.http.push(performance.now() - begun);
});

const Pool = require('pg-pool');
const pools = new Set();
const connect = Pool.prototype.connect;
Pool.prototype.connect = function (cb) {
  pools.add(this);
  const begun = performance.now();
  const before = this.totalCount;
  second.waitingMax = Math.max(second.waitingMax, this.waitingCount + 1);
  const done = () => {
    second.acquire.push(performance.now() - begun);
    if (this.totalCount > before) second.created += this.totalCount - before;
  };
  if (typeof cb === 'function') {
    return connect.call(this, (err, client, release) => {
      done();
      cb(err, client, release);
    });
  }
  return connect.call(this).then((client) => {
    done();
    return client;
  });
};

const { Client } = require('pg');
const query = Client.prototype.query;
Client.prototype.query = function (config, values, callback) {
  const begun = performance.now();
  const record = () => second.query.push(performance.now() - begun);
  const cb = typeof values === 'function' ? values : callback;
  if (typeof cb === 'function') {
    const wrapped = (err, res) => {
      record();
      cb(err, res);
    };
    return typeof values === 'function' ? query.call(this, config, wrapped) : query.call(this, config, values, wrapped);
  }
  const result = query.call(this, config, values, callback);
  if (result && typeof result.then === 'function') result.then(record, record);
  return result;
};

const q = (values, p) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] * 10) / 10;
};

let cpu = process.cpuUsage();
setInterval(() => {
  const s = second;
  const used = process.cpuUsage(cpu);
  cpu = process.cpuUsage();
  second = fresh();
  let poolTotal = 0;
  for (const pool of pools) poolTotal += pool.totalCount;
  const line = {
    at: Date.now(),
    requests: s.http.length,
    http_p99: q(s.http, 0.99),
    http_max: q(s.http, 1),
    acquire_p99: q(s.acquire, 0.99),
    acquire_max: q(s.acquire, 1),
    connections_opened: s.created,
    connections: poolTotal,
    waiting_max: s.waitingMax,
    query_p99: q(s.query, 0.99),
    query_max: q(s.query, 1),
    loop_p99: Math.round(loop.percentile(99) / 1e5) / 10,
    loop_max: Math.round(loop.max / 1e5) / 10,
    gc_max: q(s.gc, 1),
    gc_major_max: q(s.gcMajor, 1),
    gc_sum: Math.round(s.gc.reduce((a, b) => a + b, 0) * 10) / 10,
    // The process's own CPU time this second: per request, it does not depend on how busy the machine is.
    cpu_ms: Math.round((used.user + used.system) / 1000),
    statements: s.query.length,
  };
  loop.reset();
  if (file) appendFileSync(file, `${JSON.stringify(line)}\n`);
}, 1000).unref();
