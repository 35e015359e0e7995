/** The value chart's range buttons (the pressed one is shown). */
import { RANGES, type Range } from '../portfolio.model.js';

export function ChartRanges(props: { range: Range; onChange(range: Range): void }) {
  return (
    <fieldset class="chart-ranges">
      <legend class="sr-only">Chart range</legend>
      {RANGES.map((range) => (
        <button
          key={range.label}
          type="button"
          class="secondary"
          aria-pressed={range === props.range}
          onClick={() => props.onChange(range)}
        >
          {range.label}
        </button>
      ))}
    </fieldset>
  );
}
