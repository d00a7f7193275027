import { html } from 'htm/preact';
import type { MinuteBucket } from './types.js';

const WIDTH = 600;
const HEIGHT = 120;

/**
 * Requests per minute as stacked bars: accepted (bottom) and refused (top), with the refused
 * codes in each bar's tooltip. SVG attributes only: no inline style (the CSP forbids it).
 */
export function RequestsChart({ buckets }: { buckets: MinuteBucket[] }) {
  const totals = buckets.map((b) => b.accepted + refusedOf(b));
  const max = Math.max(1, ...totals);
  const slot = WIDTH / Math.max(1, buckets.length);
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${WIDTH} ${HEIGHT + 16}`} role="img" aria-label="requests per minute, accepted and refused">
      ${buckets.map((bucket, i) => {
        const refused = refusedOf(bucket);
        const acceptedHeight = (bucket.accepted / max) * HEIGHT;
        const refusedHeight = (refused / max) * HEIGHT;
        const x = i * slot + 1;
        const codes = Object.entries(bucket.refused).map(([code, n]) => `${code} ${n}`).join(', ');
        const label = `${new Date(bucket.minute).toISOString().slice(11, 16)}Z: ${bucket.accepted} accepted, ${refused} refused${codes === '' ? '' : ` (${codes})`}`;
        return html`<g>
          <title>${label}</title>
          <rect class="bar-accepted" x=${x} y=${HEIGHT - acceptedHeight} width=${slot - 2} height=${acceptedHeight} />
          <rect class="bar-refused" x=${x} y=${HEIGHT - acceptedHeight - refusedHeight} width=${slot - 2} height=${refusedHeight} />
        </g>`;
      })}
      <line class="axis" x1="0" y1=${HEIGHT} x2=${WIDTH} y2=${HEIGHT} />
      <text class="axis-label" x="0" y=${HEIGHT + 13}>${buckets.length} min ago</text>
      <text class="axis-label" x=${WIDTH} y=${HEIGHT + 13} text-anchor="end">now · max ${max}/min</text>
    </svg>
    <figcaption><span class="key key-accepted"></span> accepted <span class="key key-refused"></span> refused</figcaption>
  </figure>`;
}

function refusedOf(bucket: MinuteBucket): number {
  return Object.values(bucket.refused).reduce((sum, n) => sum + n, 0);
}
