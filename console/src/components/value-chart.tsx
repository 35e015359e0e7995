/**
 * A small inline SVG line of portfolio value over time (no chart package), drawn from the
 * readings the service recorded. Screen readers get a summary as the image's name and every
 * reading in a table behind "Readings"; people with a mouse read the axis ends.
 */
import { usd } from '../format.js';
import { ScrollRegion } from './scroll-region.js';

export interface ValuePoint {
  /** Epoch ms. */
  at: number;
  valueUsd: number;
  /** Why the service took it: after a balance change, periodically, or the page's current reading. */
  reason: 'change' | 'periodic' | 'now';
}

const WIDTH = 600;
const HEIGHT = 160;
const PAD = 8;
const DAY_MS = 86_400_000;
/**
 * The least the value axis spans, as a share of the value: a few cents' move on $1,000 stays a
 * near-flat line instead of filling the height like a crash.
 */
const MIN_SPAN_SHARE = 0.02;
const REASONS: Record<ValuePoint['reason'], string> = { change: 'after a trade or transfer', periodic: 'periodic', now: 'now' };

/** A time as the span of the chart needs it: the hour within a day, the date beyond. */
function stamp(at: number, spanMs: number): string {
  const date = new Date(at);
  return spanMs < DAY_MS
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function ValueChart({ points, rangeLabel }: { points: ValuePoint[]; rangeLabel: string }) {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return null;
  const values = points.map((point) => point.valueUsd);
  const low = Math.min(...values);
  const high = Math.max(...values);
  // The axis: the values' range, widened about its middle to the least span (not below zero when no value is).
  const pad = Math.max(0, MIN_SPAN_SHARE * Math.max(Math.abs(high), Math.abs(low)) - (high - low)) / 2;
  const floor = low >= 0 ? Math.max(0, low - pad) : low - pad;
  const top = high + pad + (low - pad < floor ? floor - (low - pad) : 0);
  const duration = last.at - first.at || 1;
  const x = (at: number) => PAD + ((at - first.at) / duration) * (WIDTH - 2 * PAD);
  // An unchanged value is a level line across the middle, not one lying on the floor.
  const y = (value: number) => (high === low ? HEIGHT / 2 : HEIGHT - PAD - ((value - floor) / (top - floor)) * (HEIGHT - 2 * PAD));
  const line =
    points.length === 1
      ? `M${PAD},${y(first.valueUsd)} H${WIDTH - PAD}`
      : points.map((p, i) => `${i ? 'L' : 'M'}${x(p.at).toFixed(1)},${y(p.valueUsd).toFixed(1)}`).join(' ');
  const label =
    `Portfolio value over the last ${rangeLabel}: ${usd(first.valueUsd)} on ${new Date(first.at).toLocaleString()}, ` +
    `now ${usd(last.valueUsd)}; low ${usd(low)}, high ${usd(high)}.`;
  return (
    <figure class="chart">
      <div class="chart-frame">
        <span class={`chart-y muted small${high === low ? ' level' : ''}`} aria-hidden="true">
          <span>{usd(high === low ? high : top)}</span>
          {high === low ? null : <span>{usd(floor)}</span>}
        </span>
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
          <path d={line} fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke" />
        </svg>
      </div>
      <div class="chart-x muted small" aria-hidden="true">
        <span>{stamp(first.at, duration)}</span>
        <span>{stamp(last.at, duration)}</span>
      </div>
      <details class="readings">
        <summary>
          Readings ({points.length}) — {usd(low)} to {usd(high)}
        </summary>
        <ScrollRegion class="table-wrap readings-table" label="Portfolio value readings">
          <table class="stacked">
            <caption class="sr-only">Portfolio value readings, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Value</th>
                <th scope="col">Taken</th>
              </tr>
            </thead>
            <tbody>
              {[...points].reverse().map((point) => (
                <tr key={`${point.at}-${point.reason}`}>
                  <td data-label="Time">{new Date(point.at).toLocaleString()}</td>
                  <td data-label="Value">{usd(point.valueUsd)}</td>
                  <td data-label="Taken">{REASONS[point.reason]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      </details>
    </figure>
  );
}
