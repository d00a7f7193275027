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
}

export async function measure(baseUrl: string, load: Load): Promise<Sample> {
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
  return {
    rps: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    statuses: Object.entries(result.statusCodeStats)
      .map(([code, stat]) => `${code}×${stat.count}`)
      .join(' '),
  };
}
