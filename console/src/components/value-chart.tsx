/**
 * A small inline SVG line of portfolio value over time (no chart package): the points the page
 * read while open. The chart is described for screen readers by its first and last values.
 */
import { usd } from '../format.js';

export interface ValuePoint {
  at: number;
  valueUsd: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const PAD = 8;

export function ValueChart({ points }: { points: ValuePoint[] }) {
  if (points.length === 0) return null;
  const first = points[0] as ValuePoint;
  const last = points[points.length - 1] as ValuePoint;
  const values = points.map((point) => point.valueUsd);
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || Math.max(1, Math.abs(high) * 0.01);
  const start = first.at;
  const duration = last.at - start || 1;
  const x = (at: number) => PAD + ((at - start) / duration) * (WIDTH - 2 * PAD);
  const y = (value: number) => HEIGHT - PAD - ((value - low) / span) * (HEIGHT - 2 * PAD);
  const line =
    points.length === 1
      ? `M${PAD},${y(first.valueUsd)} H${WIDTH - PAD}`
      : points.map((p, i) => `${i ? 'L' : 'M'}${x(p.at).toFixed(1)},${y(p.valueUsd).toFixed(1)}`).join(' ');
  const label = `Portfolio value over time: ${usd(first.valueUsd)} at ${new Date(first.at).toLocaleTimeString()}, now ${usd(last.valueUsd)}; low ${usd(low)}, high ${usd(high)}.`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
        <path d={line} fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke" />
      </svg>
      <figcaption class="muted">
        {usd(low)} – {usd(high)} since {new Date(first.at).toLocaleTimeString()} ({points.length} reading{points.length === 1 ? '' : 's'}{' '}
        while this page was open)
      </figcaption>
    </figure>
  );
}
