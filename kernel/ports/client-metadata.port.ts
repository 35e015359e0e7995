/**
 * Client ID Metadata Documents: an OAuth client whose `client_id` is an https URL publishes
 * its metadata (name, redirect URIs) as JSON at that URL. Implemented by
 * `adapters/oauth/client-metadata-http.adapter.ts`.
 */
export interface ClientMetadataPort {
  /**
   * The JSON document at `url`, parsed but not validated. Throws when it cannot be had: a
   * network failure, a timeout, a status other than 200, a redirect, a body over the size
   * limit, or text that is not JSON; `ClientMetadataAddressRefused` when the host is or
   * resolves to an internal address.
   */
  fetchDocument(url: string): Promise<unknown>;
}

/**
 * `fetchDocument` refused to connect: the client id's host is, or resolves to, an address
 * inside a network (loopback, private, link-local, CGNAT, multicast, unspecified or
 * reserved). Its own type so the authorization server can say so instead of "unknown client":
 * the client's author has something to fix.
 */
export class ClientMetadataAddressRefused extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly addressClass: string,
  ) {
    super(`client metadata host ${host} resolves to ${address}, a ${addressClass} address`);
    this.name = 'ClientMetadataAddressRefused';
  }
}
