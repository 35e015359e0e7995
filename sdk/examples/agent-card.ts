// The owner edits and publishes the agent's card; anyone reads the public directory, no credential.
import { DirectoryClient, type OperatorClient } from 'agent-runtime-sdk';

export async function publishAndFind(operator: OperatorClient, agentId: string, baseUrl: string) {
  await operator.cards.update(agentId, { name: 'Heron', description: 'Watches stablecoin pools' });
  const { publicId } = await operator.cards.publish(agentId, { snapshot: true }); // also a rounded portfolio snapshot

  const directory = new DirectoryClient({ baseUrl }); // or operator.directory
  const { items, nextCursor } = await directory.page({ q: 'heron', limit: 20 }); // then { cursor: nextCursor }
  const card = await directory.card(publicId); // unknown_error 404 `Agent not found` once revoked
  const snapshot = await directory.snapshot(publicId);
  const feed = await directory.feed(); // verified agents, newest first
  return { items, nextCursor, card, snapshot, feed };
}
