/** Positions and their profit and loss, one row each (stacked on phones). */
import { tokens, usd } from '../format.js';
import { pnlClass, type Position } from '../portfolio.model.js';
import { ScrollRegion } from './scroll-region.js';

export function PositionTable({ positions }: { positions: Position[] }) {
  return (
    <ScrollRegion class="table-wrap" label="Positions">
      <table class="stacked">
        <caption class="sr-only">Positions and their profit and loss</caption>
        <thead>
          <tr>
            <th scope="col">Token</th>
            <th scope="col">Amount</th>
            <th scope="col">Price</th>
            <th scope="col">Value</th>
            <th scope="col">Average cost</th>
            <th scope="col">Unrealized</th>
            <th scope="col">Realized</th>
          </tr>
        </thead>
        <tbody>
          {positions.map((p) => (
            <tr key={`${p.chain}:${p.token}`}>
              <th scope="row" data-label="Token">
                {p.symbol} <span class="muted small">{p.chain}</span>
              </th>
              <td title={p.amount} data-label="Amount">
                {tokens(p.amount)}
              </td>
              <td data-label="Price">{usd(p.priceUsd)}</td>
              <td data-label="Value">{usd(p.valueUsd)}</td>
              <td data-label="Average cost">{usd(p.avgCostUsd)}</td>
              <td class={pnlClass(p.unrealizedPnlUsd)} data-label="Unrealized">
                {usd(p.unrealizedPnlUsd)}
                {p.pnlPct !== null ? ` (${Number(p.pnlPct).toFixed(2)} %)` : ''}
              </td>
              <td class={pnlClass(p.realizedPnlUsd)} data-label="Realized">
                {usd(p.realizedPnlUsd)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
