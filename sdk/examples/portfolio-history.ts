// The agent's portfolio value over time, as the service recorded it (after each change, and regularly).
import type { OperatorClient } from 'agent-runtime-sdk';

export async function lastDayValue(operator: OperatorClient, agentId: string) {
  const from = new Date(Date.now() - 24 * 3600_000).toISOString();
  const { points, intervalSeconds } = await operator.trading.history({ from, limit: 48 }, { agentId });
  // points: [{ at, valueUsd, costBasisUsd, realizedPnlUsd, unrealizedPnlUsd, reason: 'change' | 'periodic' }], oldest first
  return { intervalSeconds, values: points.map((point) => `${point.at} ${point.valueUsd} USD`) };
}
