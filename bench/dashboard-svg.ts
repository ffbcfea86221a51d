/**
 * Draws deploy/grafana/cairn.json's panels as one SVG from Prometheus range-query results,
 * in the dashboard's own grid, so docs/operating.md can show the dashboard with real data
 * where no Grafana runs: titles, axes in each panel's unit, a line per series and a legend.
 * It is Cairn's drawing of the dashboard's queries, not Grafana's.
 */

/** A panel of the dashboard, as far as drawing it needs. */
export interface DashboardPanel {
  readonly id: number;
  readonly title: string;
  readonly gridPos: { readonly x: number; readonly y: number; readonly w: number; readonly h: number };
  readonly fieldConfig?: { readonly defaults?: { readonly unit?: string } };
  readonly targets: readonly { readonly refId: string; readonly expr: string; readonly legendFormat?: string }[];
}

/** One series of a `/api/v1/query_range` answer (`data.result[i]`). */
export interface RangeSeries {
  readonly metric: Readonly<Record<string, string>>;
  readonly values: readonly (readonly [number, string])[];
}

/** What a panel's queries answered: each target's series, by refId. */
export type PanelData = ReadonlyMap<string, readonly RangeSeries[]>;

/** Grafana's grid: 24 columns; a row unit is 30 px high. */
const columnWidth = 50;
const rowHeight = 30;
const margin = { left: 58, right: 12, top: 28, bottom: 44 };
/** Grafana's classic palette, first colours. */
const palette = ['#7eb26d', '#eab839', '#6ed0e0', '#ef843c', '#e24d42', '#1f78c1', '#ba43a9', '#705da0', '#508642', '#cca300'];

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Grafana's `{{label}}` legend format. */
export function legend(format: string | undefined, metric: Readonly<Record<string, string>>): string {
  if (format === undefined || format === '') return JSON.stringify(metric);
  return format.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => metric[name] ?? '');
}

/** A tick label in a Grafana unit. */
export function formatValue(value: number, unit: string | undefined): string {
  const trim = (n: number) => (Math.abs(n) >= 100 || Number.isInteger(n) ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));
  switch (unit) {
    case 's':
      return value === 0 ? '0' : value < 1 ? `${trim(value * 1000)} ms` : `${trim(value)} s`;
    case 'percentunit':
      return `${trim(value * 100)}%`;
    case 'bytes': {
      const units = ['B', 'KiB', 'MiB', 'GiB'];
      let i = 0;
      while (Math.abs(value) >= 1024 && i < units.length - 1) [value, i] = [value / 1024, i + 1];
      return `${trim(value)} ${units[i]}`;
    }
    case 'reqps':
      return `${trim(value)}/s`;
    default:
      return Math.abs(value) >= 1000 ? `${trim(value / 1000)}k` : trim(value);
  }
}

/** A round step giving about `count` ticks over [0, max]. */
function niceStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? 10 * power) || 1;
}

interface Line {
  readonly label: string;
  readonly points: readonly (readonly [number, number])[];
}

function panelSvg(panel: DashboardPanel, data: PanelData | undefined, start: number, end: number): string {
  const x0 = panel.gridPos.x * columnWidth;
  const y0 = panel.gridPos.y * rowHeight;
  const width = panel.gridPos.w * columnWidth - 6;
  const height = panel.gridPos.h * rowHeight - 6;
  const unit = panel.fieldConfig?.defaults?.unit;
  const lines: Line[] = panel.targets.flatMap((target) =>
    (data?.get(target.refId) ?? []).map((series) => ({
      label: legend(target.legendFormat, series.metric),
      points: series.values.map(([t, v]) => [t, Number(v)] as const).filter(([, v]) => Number.isFinite(v)),
    })),
  );
  const max = Math.max(0, ...lines.flatMap((line) => line.points.map(([, v]) => v)));
  // Bytes tick in round MiB, as Grafana's bytes axis does; everything else in round decimals.
  const scale = unit === 'bytes' && max >= 2 ** 20 ? 2 ** 20 : 1;
  const step = niceStep(max > 0 ? max / scale : 1, 4) * scale;
  const top = Math.ceil((max > 0 ? max : 1) / step) * step;
  const plot = { x: margin.left, y: margin.top, w: width - margin.left - margin.right, h: height - margin.top - margin.bottom };
  const sx = (t: number) => plot.x + ((t - start) / Math.max(1, end - start)) * plot.w;
  const sy = (v: number) => plot.y + plot.h - (v / top) * plot.h;
  const out: string[] = [`<g transform="translate(${x0 + 3},${y0 + 3})">`];
  out.push(`<rect width="${width}" height="${height}" rx="3" fill="#181b1f" stroke="#2c3235"/>`);
  out.push(`<text x="8" y="18" class="title">${escapeXml(panel.title)}</text>`);
  for (let v = 0; v <= top + step / 2; v += step) {
    out.push(`<line x1="${plot.x}" x2="${plot.x + plot.w}" y1="${sy(v).toFixed(1)}" y2="${sy(v).toFixed(1)}" class="grid"/>`);
    out.push(`<text x="${plot.x - 4}" y="${(sy(v) + 3).toFixed(1)}" class="tick" text-anchor="end">${escapeXml(formatValue(v, unit))}</text>`);
  }
  const tickSeconds = niceStep(end - start, 4);
  for (let t = 0; t <= end - start; t += tickSeconds) {
    const minutes = Math.floor(t / 60);
    const seconds = String(Math.round(t % 60)).padStart(2, '0');
    out.push(`<text x="${sx(start + t).toFixed(1)}" y="${plot.y + plot.h + 13}" class="tick" text-anchor="middle">${minutes}:${seconds}</text>`);
  }
  if (lines.length === 0) out.push(`<text x="${plot.x + plot.w / 2}" y="${plot.y + plot.h / 2}" class="tick" text-anchor="middle">No data</text>`);
  // Four legend entries a row, each cut to its column (about 5.5 px a character at 10 px).
  const legendChars = Math.max(4, Math.floor((plot.w / 4 - 16) / 5.5));
  lines.forEach((line, i) => {
    const colour = palette[i % palette.length];
    if (line.points.length > 0) {
      const d = line.points.map(([t, v], j) => `${j === 0 ? 'M' : 'L'}${sx(t).toFixed(1)},${sy(v).toFixed(1)}`).join('');
      out.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="1.5"/>`);
    }
    const lx = plot.x + (i % 4) * Math.floor(plot.w / 4);
    const ly = plot.y + plot.h + 27 + Math.floor(i / 4) * 11;
    if (i < 8) {
      out.push(`<rect x="${lx}" y="${ly - 7}" width="10" height="3" fill="${colour}"/>`);
      out.push(`<text x="${lx + 13}" y="${ly}" class="legend">${escapeXml(line.label.slice(0, legendChars))}</text>`);
    }
  });
  out.push('</g>');
  return out.join('\n');
}

/**
 * The dashboard's panels drawn with `data` (by panel id) over [start, end] (Unix seconds),
 * under a caption saying what was drawn.
 */
export function dashboardSvg(panels: readonly DashboardPanel[], data: ReadonlyMap<number, PanelData>, start: number, end: number, caption: string): string {
  const captionHeight = 24;
  const width = 24 * columnWidth;
  const height = Math.max(...panels.map((p) => p.gridPos.y + p.gridPos.h)) * rowHeight + captionHeight;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Inter, Helvetica, Arial, sans-serif">`,
    '<style>.title{fill:#ccccdc;font-size:13px;font-weight:500}.tick{fill:#8e8e8e;font-size:10px}.legend{fill:#ccccdc;font-size:10px}.grid{stroke:#2c3235;stroke-width:1}</style>',
    `<rect width="${width}" height="${height}" fill="#111217"/>`,
    `<text x="8" y="16" class="legend">${escapeXml(caption)}</text>`,
    `<g transform="translate(0,${captionHeight})">`,
    ...panels.map((panel) => panelSvg(panel, data.get(panel.id), start, end)),
    '</g>',
    '</svg>',
    '',
  ].join('\n');
}
