/**
 * A flame graph of sampled call stacks as a standalone SVG (Brendan Gregg's layout:
 * the root at the bottom, each frame as wide as its inclusive time, callees above it),
 * so that a CPU profile can be kept in the repository and read in any browser offline.
 */
import type { StackTime } from './cpuprofile.js';

/** A frame of the merged call tree. */
interface Frame {
  readonly name: string;
  micros: number;
  readonly children: Map<string, Frame>;
}

const width = 1200;
const rowHeight = 16;
/** Frames narrower than this many pixels are not drawn (their time is in their parent's width). */
const minWidth = 0.3;

function merge(stacks: readonly StackTime[]): Frame {
  const root: Frame = { name: 'all', micros: 0, children: new Map() };
  for (const { frames, micros } of stacks) {
    root.micros += micros;
    let at = root;
    for (const name of frames) {
      let child = at.children.get(name);
      if (!child) at.children.set(name, (child = { name, micros: 0, children: new Map() }));
      child.micros += micros;
      at = child;
    }
  }
  return root;
}

function depth(frame: Frame): number {
  let deepest = 0;
  for (const c of frame.children.values()) deepest = Math.max(deepest, depth(c));
  return deepest + 1;
}

const escapeXml = (text: string): string => text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/** A warm colour from the frame's name, stable across graphs; Cairn's own code in a cooler hue. */
function colour(name: string): string {
  let hash = 0;
  for (const c of name) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  const own = /\((src|bench)\//.test(name);
  return own ? `hsl(${200 + (hash % 40)},60%,${60 + (hash % 15)}%)` : `hsl(${10 + (hash % 40)},80%,${55 + (hash % 15)}%)`;
}

/** The SVG of `stacks`, titled `title`; `perRequest` divides times for the tooltips. */
export function flameGraphSvg(stacks: readonly StackTime[], title: string, perRequest: number): string {
  const root = merge(stacks);
  const rows = depth(root);
  const height = (rows + 2) * rowHeight;
  const scale = width / Math.max(root.micros, 1);
  const rects: string[] = [];
  const draw = (frame: Frame, x: number, level: number): void => {
    const w = frame.micros * scale;
    if (w < minWidth) return;
    const y = height - (level + 1) * rowHeight;
    const label = w > 40 ? escapeXml(frame.name.slice(0, Math.floor(w / 6.5))) : '';
    const tip = `${escapeXml(frame.name)}: ${(frame.micros / perRequest).toFixed(1)} µs per request (${((100 * frame.micros) / root.micros).toFixed(1)} %)`;
    rects.push(
      `<g><title>${tip}</title><rect x="${x.toFixed(2)}" y="${y}" width="${w.toFixed(2)}" height="${rowHeight - 1}" fill="${colour(frame.name)}"/>` +
        (label ? `<text x="${(x + 3).toFixed(2)}" y="${y + rowHeight - 4}">${label}</text>` : '') +
        '</g>',
    );
    let childX = x;
    for (const c of [...frame.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      draw(c, childX, level + 1);
      childX += c.micros * scale;
    }
  };
  draw(root, 0, 0);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="monospace" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="4" y="13" font-size="13">${escapeXml(title)}</text>`,
    ...rects,
    '</svg>',
    '',
  ].join('\n');
}
