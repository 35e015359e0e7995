import { AppError } from '../../kernel/errors/app-error.js';
import type { Chain, TokenInfo, VenuePort } from '../../kernel/ports/venue.port.js';
import { tokenAddressProblem } from '../../kernel/vocabulary/chain-address.js';

/**
 * Resolving the tokens a request names, before any check runs: the safety path, DCA
 * strategies and the quote and info operations all name tokens the same way.
 */

/** The trading errors, word for word. */
const tokenNotFound = (ref: string) => `Token not found: ${ref}`;

/**
 * The token a symbol or address names on a chain; 404 `Token not found: <ref>` when
 * the venue knows none, 400 `<field> is not a valid <chain> address` for an EVM address with a wrong checksum.
 */
export async function requireToken(venue: Pick<VenuePort, 'findToken'>, chain: Chain, ref: string, field = 'token'): Promise<TokenInfo> {
  const problem = tokenAddressProblem(chain, ref, field);
  if (problem) throw AppError.validation([problem]);
  const token = await venue.findToken(chain, ref);
  if (!token) throw new AppError('TOKEN_NOT_FOUND', tokenNotFound(ref));
  return token;
}

/**
 * The two tokens of a swap (404 for an unknown one), refused when they are one token: a
 * symbol and an address may name the same one, so they are compared once resolved. `fields`
 * are the caller's names for them, for the message (default `inputMint`, `outputMint`).
 */
export async function requireTokenPair(
  venue: Pick<VenuePort, 'findToken'>,
  chain: Chain,
  input: string,
  output: string,
  [inputField, outputField]: readonly [string, string] = ['inputMint', 'outputMint'],
): Promise<[TokenInfo, TokenInfo]> {
  const problems = [tokenAddressProblem(chain, input, inputField), tokenAddressProblem(chain, output, outputField)].filter(
    (p) => p !== undefined,
  );
  if (problems.length > 0) throw AppError.validation(problems);
  const pair = await Promise.all([requireToken(venue, chain, input, inputField), requireToken(venue, chain, output, outputField)]);
  if (pair[0].address === pair[1].address) throw AppError.validation([`${inputField} and ${outputField} must be different tokens`]);
  return pair;
}
