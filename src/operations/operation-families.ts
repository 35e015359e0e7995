/**
 * Tool families of interface 4.5 (`chat` … `agents`), plus the operator-only families of the
 * hand-written routes that joined the catalog: legacy `bots`, `audit` logs, and `ops`
 * (service operators'; never switched off by the runtime settings, see OperationCatalog).
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
