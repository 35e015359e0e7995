/**
 * Tool families of the MCP routes (`chat` … `agents`), plus the families of the hand-written
 * routes that joined the catalog: legacy `bots` (operators'), `audit` logs (the owner's whole
 * trail, and an agent's own MCP calls for its credentials), and `ops` (service operators';
 * never switched off by the runtime settings, see OperationCatalog).
 */
export const OPERATION_FAMILIES = [
  'chat',
  'research',
  'portfolio',
  'trading',
  'risk',
  'strategy',
  'wallet',
  'keys',
  'agents',
  'bots',
  'audit',
  'ops',
] as const;
export type OperationFamily = (typeof OPERATION_FAMILIES)[number];
