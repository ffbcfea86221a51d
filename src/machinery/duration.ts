/**
 * Durations as Kubernetes prints and reads them: kube's HumanDuration
 * (k8s.io/apimachinery/pkg/util/duration), the "5m", "3h12m", "4d" ages `kubectl get`
 * prints; Go's `time.ParseDuration`, which kube's flags read; and, for spans of history
 * an hour is too short a unit for, the same with days and weeks.
 */

/** Renders a duration in milliseconds as kubectl shows ages. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  // Up to two seconds in the future is clock skew, shown as now.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

const goDurationUnits: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's units and days and weeks, as Prometheus reads `--storage.tsdb.retention.time` (`15d`, `2w`). */
const longDurationUnits: Readonly<Record<string, number>> = { ...goDurationUnits, d: 86_400_000, w: 604_800_000 };

/**
 * A duration as Go's `time.ParseDuration` reads it (`1m0s`, `30s`, `1.5h`, `-2s`, `0`), in
 * milliseconds; throws with Go's message (`time: invalid duration "x"`) otherwise.
 */
export function parseGoDuration(text: string): number {
  return parseDuration(text, goDurationUnits);
}

/** A duration of Go's form with days and weeks too (`7d`, `2w`, `1d12h`), in milliseconds; throws with Go's messages. */
export function parseLongDuration(text: string): number {
  return parseDuration(text, longDurationUnits);
}

function parseDuration(text: string, units: Readonly<Record<string, number>>): number {
  const quoted = JSON.stringify(text);
  const sign = text.startsWith('-') ? -1 : 1;
  const unsigned = text.replace(/^[-+]/, '');
  if (unsigned === '0') return 0;
  if (unsigned === '') throw new Error(`time: invalid duration ${quoted}`);
  let ms = 0;
  for (let rest = unsigned; rest !== '';) {
    const part = /^(\d+(?:\.\d*)?|\.\d+)([^\d.]*)/.exec(rest);
    if (!part) throw new Error(`time: invalid duration ${quoted}`);
    const [whole, amount, unit] = part;
    if (unit === '') throw new Error(`time: missing unit in duration ${quoted}`);
    const scale = units[unit];
    if (scale === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    ms += Number(amount) * scale;
    rest = rest.slice(whole.length);
  }
  return sign * ms;
}
