/**
 * Request and correlation ids as every surface reads and echoes them (REST, MCP, event
 * streams): one header name and one rule for what a caller may supply.
 */
export const REQUEST_ID_HEADER = 'X-Request-Id';
export const CORRELATION_ID_HEADER = 'X-Correlation-Id';

/** Ids we accept from callers: short and free of characters that could forge log lines or headers. */
const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's id when it is well formed, otherwise undefined. */
export function acceptId(value: string | undefined): string | undefined {
  return value !== undefined && ID_PATTERN.test(value) ? value : undefined;
}
