/** Fees by channel: each channel's filled orders, volume and fees, and the total (stacked rows on phones). */
import type { BotTradingFeesChannelsOutput } from 'agent-runtime-sdk';
import { usd, words } from '../format.js';
import { ScrollRegion } from './scroll-region.js';

export function FeesTable({ fees }: { fees: BotTradingFeesChannelsOutput }) {
  return (
    <ScrollRegion class="table-wrap" label="Fees by channel">
      <table class="stacked">
        <caption class="sr-only">Venue fees of filled orders by the channel that placed them</caption>
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Orders</th>
            <th scope="col">Volume</th>
            <th scope="col">Fees</th>
          </tr>
        </thead>
        <tbody>
          {fees.channels.map((row) => (
            <tr key={row.channel}>
              <th scope="row" data-label="Channel">
                {words(row.channel)}
              </th>
              <td data-label="Orders">{row.orders}</td>
              <td data-label="Volume">{usd(row.volumeUsd)}</td>
              <td data-label="Fees">${row.feeUsd}</td>
            </tr>
          ))}
          <tr class="total">
            <th scope="row" data-label="Channel">
              All channels
            </th>
            <td data-label="Orders">{fees.total.orders}</td>
            <td data-label="Volume">{usd(fees.total.volumeUsd)}</td>
            <td data-label="Fees">${fees.total.feeUsd}</td>
          </tr>
        </tbody>
      </table>
    </ScrollRegion>
  );
}
