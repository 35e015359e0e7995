/** 503 `Circuit breaker open for provider: <provider>` (interface 7.4): one wording for every breaker. */
export function circuitBreakerOpenMessage(provider: string): string {
  return `Circuit breaker open for provider: ${provider}`;
}
