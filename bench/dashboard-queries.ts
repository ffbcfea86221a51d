/**
 * How `npm run dashboard-picture` asks Prometheus for the dashboard's data: each panel's
 * `expr` with Grafana's variables filled in as Grafana fills them (every job's and
 * instance's series, the rate interval of four scrapes), over `/api/v1/query_range`.
 */
import type { RangeSeries } from './dashboard-svg.js';

/** The scrape interval the picture's Prometheus uses, and the query step. */
export const scrapeSeconds = 2;
/** The job the picture's Prometheus scrapes Cairn as. */
export const job = 'cairn';
/** Grafana's `$__rate_interval` at this scrape interval and step: four scrapes. */
const rateInterval = `${4 * scrapeSeconds}s`;

/** A panel's `expr` as Grafana sends it here: the job, every instance, the rate interval. */
export function grafanaExpr(expr: string): string {
  return expr.replaceAll('$__rate_interval', rateInterval).replaceAll('$job', job).replaceAll('$instance', '.*');
}

/** The series `expr` answers over [start, end] (Unix seconds), one point per scrape. */
export async function queryRange(prometheus: string, expr: string, start: number, end: number): Promise<RangeSeries[]> {
  const query = new URLSearchParams({ query: expr, start: String(start), end: String(end), step: String(scrapeSeconds) });
  const response = await fetch(`${prometheus}/api/v1/query_range?${query.toString()}`);
  const body = (await response.json()) as { status: string; error?: string; data?: { result: RangeSeries[] } };
  if (body.status !== 'success' || body.data === undefined) throw new Error(`${expr}: ${body.error ?? response.status}`);
  return body.data.result;
}
