/** One autocannon measurement against one server, reduced to the numbers the report needs. */
import autocannon from 'autocannon';

export interface Load {
  path: string;
  body: string;
  headers: Record<string, string>;
  durationSeconds: number;
  connections: number;
  /** Requests per second across all connections; absent: as fast as the server answers. */
  overallRate?: number;
}

export interface Sample {
  /** Successful (2xx) responses per second. */
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx responses plus connection errors and timeouts: a row with failures is not comparable. */
  failures: number;
  statuses: string;
  /** Responses of any status. */
  responses: number;
  /** CPU time of the server's process tree during the load ÷ responses, in µs (NaN when not measured). */
  cpuUsPerRequest: number;
}

/**
 * Drives the load; `cpuMs` (the server tree's CPU clock, bench/lib/processes.ts) is read just before
 * and after, so the CPU per request covers this load only, on every process and thread of the server.
 */
export async function measure(baseUrl: string, load: Load, cpuMs?: () => number): Promise<Sample> {
  const cpuBefore = cpuMs?.() ?? NaN;
  const result = await autocannon({
    url: `${baseUrl}${load.path}`,
    method: 'POST',
    headers: load.headers,
    body: load.body,
    connections: load.connections,
    pipelining: 1,
    duration: load.durationSeconds,
    timeout: 10,
    ...(load.overallRate === undefined ? {} : { overallRate: load.overallRate }),
  });
  const cpuAfter = cpuMs?.() ?? NaN;
  const responses = result['2xx'] + result.non2xx;
  return {
    rps: result['2xx'] / result.duration,
    responses,
    cpuUsPerRequest: responses > 0 ? ((cpuAfter - cpuBefore) * 1000) / responses : NaN,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    statuses: Object.entries(result.statusCodeStats)
      .map(([code, stat]) => `${code}×${stat.count}`)
      .join(' '),
  };
}

/** A row's request as {@link measureTogether} sends it. */
export interface RowRequest {
  path: string;
  body: string;
  headers: Record<string, string>;
}

/**
 * Drives several rows against one server at the same time, `totalRate` shared evenly between them
 * (absent or 0: each as fast as the server answers), and reads the server tree's CPU clock around
 * all of them: the CPU per response is over every row's responses together (the soak, bench/memory.ts).
 */
export async function measureTogether(
  server: { url: string; cpuMs: () => number },
  rows: readonly RowRequest[],
  load: { durationSeconds: number; connections: number; totalRate?: number },
): Promise<{ samples: Sample[]; cpuUsPerRequest: number }> {
  const cpuBefore = server.cpuMs();
  const perRow = load.totalRate === undefined || load.totalRate <= 0 ? {} : { overallRate: load.totalRate / rows.length };
  const samples = await Promise.all(
    rows.map((row) => measure(server.url, { path: row.path, body: row.body, headers: row.headers, durationSeconds: load.durationSeconds, connections: load.connections, ...perRow })),
  );
  const responses = samples.reduce((sum, sample) => sum + sample.responses, 0);
  return { samples, cpuUsPerRequest: ((server.cpuMs() - cpuBefore) * 1000) / Math.max(1, responses) };
}
