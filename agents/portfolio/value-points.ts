/** How the value history keeps its readings: one per bucket when written, thinned when read. */
import type { ValuePoint } from './value-history.records.js';

/**
 * A period's points with `point` in time order, one per bucket of `bucketMs` (the later
 * reading of a bucket wins); null when the period already holds a later reading of that bucket.
 */
export function withPoint(points: readonly ValuePoint[], point: ValuePoint, bucketMs: number): ValuePoint[] | null {
  const bucket = Math.floor(point.at / bucketMs);
  const same = points.find((existing) => Math.floor(existing.at / bucketMs) === bucket);
  if (same && same.at > point.at) return null;
  const kept = points.filter((existing) => existing !== same);
  const index = kept.findIndex((existing) => existing.at > point.at);
  return index === -1 ? [...kept, point] : [...kept.slice(0, index), point, ...kept.slice(index)];
}

/**
 * At most `maxPoints` readings of those added in time order. Up to `maxPoints` are kept as they
 * are; past that, the time from the first reading to `to` is cut into `maxPoints` equal slices
 * and each keeps its last reading, so a chart of a long range ends on the newest value and
 * shows every slice that had one. Holds at most `maxPoints + 1` readings at any time.
 */
export class Thinning {
  /** Readings added. */
  seen = 0;
  /** Epoch ms of the first reading added. */
  firstAt: number | undefined;
  private kept: ValuePoint[] | null = [];
  private readonly slices = new Map<number, ValuePoint>();
  private start = 0;
  private width = 1;

  constructor(
    private readonly maxPoints: number,
    private readonly to: number,
  ) {}

  add(point: ValuePoint): void {
    this.seen++;
    this.firstAt ??= point.at;
    if (!this.kept) {
      this.slot(point);
      return;
    }
    if (this.kept.length === 0) {
      this.start = point.at;
      this.width = (Math.max(this.to, point.at) - point.at + 1) / this.maxPoints;
    }
    this.kept.push(point);
    if (this.kept.length <= this.maxPoints) return;
    for (const held of this.kept) this.slot(held);
    this.kept = null;
  }

  points(): ValuePoint[] {
    return this.kept ? [...this.kept] : [...this.slices.values()];
  }

  private slot(point: ValuePoint): void {
    this.slices.set(Math.min(this.maxPoints - 1, Math.floor((point.at - this.start) / this.width)), point);
  }
}
