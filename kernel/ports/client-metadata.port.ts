/**
 * Client ID Metadata Documents: an OAuth client whose `client_id` is an https URL publishes
 * its metadata (name, redirect URIs) as JSON at that URL. Implemented by
 * `adapters/oauth/client-metadata-http.adapter.ts`.
 */
export interface ClientMetadataPort {
  /**
   * The JSON document at `url`, parsed but not validated. Throws when it cannot be had: a
   * network failure, a timeout, a status other than 200, a redirect, a body over the size
   * limit, or text that is not JSON.
   */
  fetchDocument(url: string): Promise<unknown>;
}
