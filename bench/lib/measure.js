/**
 * Measuring helpers: throughput runs with autocannon (in-process), latency samples with sequential requests,
 * percentiles, resident memory of a process and cold-start timing.
 */
const fs = require('node:fs');
const autocannon = require('autocannon');

/**
 * Runs autocannon against `url` with `headers` for `seconds` with `connections` concurrent connections.
 * Resolves `{rps, p50, p99, requests, non2xx, errors}` (rps = mean requests/s; p50/p99 latency in ms).
 */
function loadTest({ url, headers = {}, seconds = 10, connections = 20 }) {
  return new Promise((resolve, reject) => {
    autocannon({ url, headers, duration: seconds, connections, pipelining: 1 }, (err, result) => {
      if (err) return reject(err);
      resolve({
        rps: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      });
    });
  });
}

/** The q-th percentile (0..100) of `values` (nearest-rank), or NaN when empty. */
function percentile(values, q) {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((q / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Sends the HTTP GET `{url, headers}` and resolves once its body arrived; throws unless it answered 2xx. */
async function fetchOk({ url, headers }) {
  const res = await fetch(url, { headers });
  const body = await res.text();
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${body.slice(0, 500)}`);
}

/**
 * Latency of `count` requests made by `concurrency` sequential workers; `next(i)` returns `{url, headers}` of the
 * i-th request (an HTTP GET whose answer must be 2xx: throws otherwise, with the body), or `send(i)` makes the i-th
 * request of any kind and resolves when it is answered. Resolves `{p50, p95, p99, max, n}` in ms (time to the full
 * answer), after `warmup` unmeasured requests.
 */
async function sampleLatency({ count, concurrency = 1, warmup = 20, next, send = (i) => fetchOk(next(i)) }) {
  const one = async (i) => {
    const started = performance.now();
    await send(i);
    return performance.now() - started;
  };
  for (let i = 0; i < warmup; i++) await one(i);
  const times = [];
  let index = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (index < count) {
        const i = index++;
        times.push(await one(i));
      }
    }),
  );
  return {
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    max: Math.max(...times),
    n: times.length,
  };
}

/**
 * CPU time (user + system) process `pid` has used so far, in ms (fields 14 and 15 of /proc/<pid>/stat, in clock
 * ticks of 10 ms on Linux), or null when it is gone.
 */
function cpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** Resident set size of process `pid` in MB (VmRSS of /proc/<pid>/status), or null when it is gone. */
function rssMb(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * Samples the RSS of each named process every `everyMs` until `stop()` is called; `pidsOf()` returns
 * `{name: pid}` at each sample (processes may be restarted meanwhile). `stop()` returns the peak per name (MB).
 * Used to report memory under load.
 */
function peakRss(pidsOf, everyMs = 200) {
  const peak = {};
  const sample = () => {
    for (const [name, pid] of Object.entries(pidsOf())) peak[name] = Math.max(peak[name] ?? 0, rssMb(pid) ?? 0);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

/**
 * Waits until the processes `pidsOf()` names (`{name: pid}`) together used less than `busyFraction` of one core over
 * a `windowMs` window (background work left by a bulk seed or an ingest: retention sweeps, index builds, consumers
 * catching up), waiting at least `minMs` and at most `timeoutMs`; resolves `{waitedMs, busyFraction, busiest}` of the last window (`busiest`: the
 * process that used the most of it, with its fraction of a core). Latency samples taken right after a bulk seed
 * otherwise measure the seed's aftermath, not the request path.
 */
async function settle(pidsOf, { busyFraction = 0.25, windowMs = 1000, minMs = 0, timeoutMs = 60_000 } = {}) {
  const started = performance.now();
  const sample = () => Object.entries(pidsOf()).map(([name, pid]) => [name, cpuMs(pid) ?? 0]);
  for (;;) {
    const before = new Map(sample());
    await new Promise((r) => setTimeout(r, windowMs));
    const used = sample().map(([name, ms]) => [name, (ms - (before.get(name) ?? ms)) / windowMs]);
    const busy = used.reduce((sum, [, fraction]) => sum + fraction, 0);
    const [name, fraction] = used.reduce((a, b) => (b[1] > a[1] ? b : a));
    const waitedMs = performance.now() - started;
    if ((busy < busyFraction && waitedMs >= minMs) || waitedMs >= timeoutMs)
      return { waitedMs, busyFraction: busy, busiest: { name, fraction } };
  }
}

/** Polls `url` every `everyMs` until it answers 200; resolves the ms since `since` (a performance.now() value). */
async function timeUntilReady(url, since, timeoutMs = 60_000, everyMs = 10) {
  const deadline = since + timeoutMs;
  while (performance.now() < deadline) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

module.exports = {
  cpuMs,
  fetchOk,
  loadTest,
  percentile,
  sampleLatency,
  rssMb,
  peakRss,
  settle,
  timeUntilReady,
};
