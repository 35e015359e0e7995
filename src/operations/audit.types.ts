/** One audited call (the events: MCP audit logs; every REST capability call and due job too). */
export interface AuditEntry {
  /** Epoch ms when the call started. */
  at: number;
  surface: 'rest' | 'mcp' | 'system' | 'widget';
  /** Operation name (tool) or `METHOD /route/template` for REST calls outside the catalog. */
  operation: string;
  principal: { type: string; id: string };
  /** Display prefix of the API key, when one was used; never the secret. */
  credentialPrefix?: string;
  scope?: string;
  /** The agent or bot acted on, as `agent:<id>` / `bot:<id>`. */
  subject?: string;
  /** SHA-256 of the canonical JSON of the arguments, with secret-named fields removed first. */
  argsDigest: string;
  outcome: 'ok' | 'error';
  /** Error code or HTTP status when the outcome is an error. */
  error?: string;
  latencyMs: number;
  requestId: string;
  correlationId: string;
}

/** Where audit entries go; implementations must never throw into the call being audited. */
export interface AuditSink {
  record(entry: AuditEntry): void;
}
