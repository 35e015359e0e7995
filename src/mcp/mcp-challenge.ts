/**
 * The OAuth challenge of a 401 on an agent's MCP endpoint or event stream (RFC 9728 §5.1):
 * `Bearer resource_metadata="<url>"`, how an MCP client finds the authorization server.
 */
export function bearerChallenge(resourceMetadataUrl: string): string {
  // Quotes and backslashes would end the quoted string; a publicId (base64url) holds neither.
  return `Bearer resource_metadata="${resourceMetadataUrl.replace(/["\\]/g, '')}"`;
}

/** Where an agent's protected resource metadata is, for the MCP URL `<issuer>/mcp/<publicId>`. */
export function resourceMetadataUrlOf(issuer: string): (publicId: string) => string {
  const base = issuer.replace(/\/+$/, '');
  return (publicId) => `${base}/.well-known/oauth-protected-resource/mcp/${publicId}`;
}
