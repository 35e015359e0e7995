// @vitest-environment happy-dom
/**
 * The value chart from the readings the service recorded: its name summarises the line for
 * screen readers, a readings table lists every point newest first, and an unchanged value is
 * a level line across the middle with one axis label.
 */
import { cleanup, render, screen, within } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { type ValuePoint, ValueChart } from '../src/components/value-chart.js';

afterEach(cleanup);

const at = (minutes: number) => Date.UTC(2026, 10, 27, 9) + minutes * 60_000;

describe('ValueChart', () => {
  it('names the line by its first, last, low and high values and lists every reading newest first', () => {
    const points: ValuePoint[] = [
      { at: at(0), valueUsd: 1000, reason: 'change' },
      { at: at(15), valueUsd: 950.5, reason: 'periodic' },
      { at: at(30), valueUsd: 1100, reason: 'periodic' },
      { at: at(31), valueUsd: 1080, reason: 'now' },
    ];
    render(<ValueChart points={points} rangeLabel="24 hours" />);
    const chart = screen.getByRole('img');
    const name = chart.getAttribute('aria-label') ?? '';
    expect(name).toMatch(/^Portfolio value over the last 24 hours: \$1,000\.00 on .+, now \$1,080\.00; low \$950\.50, high \$1,100\.00\.$/);
    const rows = within(screen.getByRole('table', { name: 'Portfolio value readings, newest first' })).getAllByRole('row');
    expect(rows.slice(1).map((row) => [...row.querySelectorAll('td')].slice(1).map((cell) => cell.textContent))).toEqual([
      ['$1,080.00', 'now'],
      ['$1,100.00', 'periodic'],
      ['$950.50', 'periodic'],
      ['$1,000.00', 'after a trade or transfer'],
    ]);
    // The line goes through each point in time order: four segments' ends.
    expect(chart.querySelector('path')?.getAttribute('d')?.match(/[ML]/g)).toEqual(['M', 'L', 'L', 'L']);
  });

  it('draws an unchanged value as a level line across the middle, with one value on its axis', () => {
    render(
      <ValueChart
        points={[
          { at: at(0), valueUsd: 500, reason: 'change' },
          { at: at(10), valueUsd: 500, reason: 'now' },
        ]}
        rangeLabel="7 days"
      />,
    );
    const d = screen.getByRole('img').querySelector('path')?.getAttribute('d') ?? '';
    expect([...d.matchAll(/,(\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]))).toEqual([80, 80]);
    expect(document.querySelector('.chart-y')?.textContent).toBe('$500.00');
  });

  it('keeps a few cents on $1,000 a near-flat line, its axis spanning at least 2 % of the value', () => {
    render(
      <ValueChart
        points={[
          { at: at(0), valueUsd: 1000, reason: 'change' },
          { at: at(10), valueUsd: 999.97, reason: 'now' },
        ]}
        rangeLabel="7 days"
      />,
    );
    const d = screen.getByRole('img').querySelector('path')?.getAttribute('d') ?? '';
    const [start, end] = [...d.matchAll(/,(\d+(?:\.\d+)?)/g)].map((m) => Number(m[1]));
    // 160 px high: a 3-cent fall is well under a pixel, not the whole height.
    expect(Math.abs((end ?? 0) - (start ?? 0))).toBeLessThan(1);
    expect([...(document.querySelector('.chart-y')?.children ?? [])].map((label) => label.textContent)).toEqual(['$1,009.99', '$989.99']);
  });

  it('draws nothing without a reading', () => {
    const { container } = render(<ValueChart points={[]} rangeLabel="24 hours" />);
    expect(container.innerHTML).toBe('');
  });
});
