// Agent: with its API key, list the tools, swap on the paper venue, and read the event stream
// until the order is filled.
import { AgentClient, SdkError } from 'agent-runtime-sdk';

const agent = new AgentClient({
  baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:3000',
  publicId: process.env.PUBLIC_ID ?? '',
  apiKey: process.env.AGENT_KEY ?? '',
});

const tools = await agent.listTools();
console.log(
  `${tools.length} tools, among them ${tools.some((tool) => tool.name === 'trading_solana_aggregator_swap') ? 'the swap' : 'no swap'}`,
);

// Events since the start of the stream (replayed), then live ones.
const events = agent.subscribe({ lastEventId: 0 });

try {
  // 10 USDC (6 decimals) to SOL; the SDK adds the idempotency key, the same on every retry.
  const order = await agent.callTool('trading_solana_aggregator_swap', { inputMint: 'USDC', outputMint: 'SOL', amount: '10000000' });
  console.log(`order ${order.order_id}: ${order.status}`);

  for await (const event of events) {
    console.log(`event ${event.id} ${event.event}`);
    const updated = event.data.order as { order_id: string; status: string } | undefined;
    if (event.event === 'order.updated' && updated?.order_id === order.order_id && updated.status === 'filled') break;
  }
} catch (error) {
  // Every failure is an SdkError with a code of the SDK error mapping.
  if (error instanceof SdkError) console.error(`${error.code} (${error.status}): ${error.message}`);
  throw error;
} finally {
  events.close();
}
