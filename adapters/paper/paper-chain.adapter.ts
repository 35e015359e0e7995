/**
 * The paper venue's chains: transfers move the paper ledger instead of a real chain, with
 * the same life as a live transfer (signed, persisted, broadcast, looked up by signature),
 * so withdrawals run the same path on paper as live. A transfer pays no fee.
 */
import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type {
  ChainHealth,
  ChainPort,
  ConfirmationStatus,
  RebroadcastOutcome,
  SignedTransfer,
  TransferRequest,
  TransferResult,
} from '../../kernel/ports/chain.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { NATIVE_EVM_ADDRESS, NATIVE_SOL_MINT, walletChainOf, type Chain } from '../../kernel/ports/venue.port.js';
import { normalizeAddress, PaperLedger } from './paper-ledger.js';

/** What the paper "signed bytes" carry: the transfer itself and a random nonce (two equal transfers are two transactions). */
const SignedPaperTransfer = z.object({
  chain: z.string(),
  from: z.string(),
  to: z.string(),
  token: z.string(),
  amount: z.string().regex(/^\d{1,78}$/),
  nonce: z.string(),
});

export interface PaperChainOptions {
  chain: Chain;
  store: StorePort;
  clock: ClockPort;
}

export class PaperChain implements ChainPort {
  readonly chain: Chain;
  private readonly ledger: PaperLedger;

  constructor(private readonly options: PaperChainOptions) {
    this.chain = options.chain;
    this.ledger = new PaperLedger({ store: options.store });
  }

  async nativeBalance(address: string): Promise<string> {
    return this.tokenBalance(address, this.chain === 'solana' ? NATIVE_SOL_MINT : NATIVE_EVM_ADDRESS);
  }

  async tokenBalance(address: string, token: string): Promise<string> {
    const balances = await this.ledger.balances(this.chain, normalizeAddress(this.chain, address));
    return balances[token] ?? '0';
  }

  async transfer(request: TransferRequest): Promise<TransferResult> {
    if (request.signer.chain !== walletChainOf(this.chain))
      throw AppError.validation([`signer is a ${request.signer.chain} wallet, not one for ${this.chain}`]);
    if (!/^\d{1,78}$/.test(request.amount)) throw AppError.validation(['amount must be a non-negative integer in base units']);
    const from = normalizeAddress(this.chain, request.signer.address);
    const token = request.token ?? (this.chain === 'solana' ? NATIVE_SOL_MINT : NATIVE_EVM_ADDRESS);
    if (BigInt(await this.tokenBalance(from, token)) < BigInt(request.amount)) {
      throw new AppError('INSUFFICIENT_BALANCE', 'Insufficient balance for requested withdrawal amount');
    }
    const body = {
      chain: this.chain,
      from,
      to: normalizeAddress(this.chain, request.to),
      token,
      amount: request.amount,
      nonce: randomBytes(16).toString('hex'),
    };
    const signedTx = Buffer.from(JSON.stringify(body)).toString('base64');
    const signed: SignedTransfer = { txSignature: this.signatureOf(signedTx), signedTx };
    await request.beforeBroadcast?.(signed);
    await this.apply(signed);
    return { txSignature: signed.txSignature };
  }

  async confirmation(txSignature: string): Promise<ConfirmationStatus> {
    const transfer = await this.ledger.readTransfer(txSignature);
    return transfer && transfer.chain === this.chain ? 'confirmed' : 'unknown';
  }

  /** Paper transactions never expire: the same bytes apply once, whenever they come. */
  async rebroadcast(signed: SignedTransfer): Promise<RebroadcastOutcome> {
    await this.apply(signed);
    return 'sent';
  }

  /** The paper ledger runs no programs: only the well-known ids (refused before any chain is asked) name one. */
  async isProgram(): Promise<boolean> {
    return false;
  }

  async health(): Promise<ChainHealth> {
    return { chain: this.chain, reachable: true, latencyMs: 0 };
  }

  private async apply(signed: SignedTransfer): Promise<void> {
    if (this.signatureOf(signed.signedTx) !== signed.txSignature)
      throw AppError.validation(['signed transaction does not match its signature']);
    const parsed = SignedPaperTransfer.safeParse(JSON.parse(Buffer.from(signed.signedTx, 'base64').toString('utf8')));
    if (!parsed.success || parsed.data.chain !== this.chain)
      throw AppError.validation(['signed transaction is not a paper transfer of this chain']);
    const { from, to, token, amount } = parsed.data;
    await this.ledger.transfer(signed.txSignature, { chain: this.chain, from, to, token, amount, at: this.options.clock.now() });
  }

  /** Shaped like the chain's own: 64-byte base58 on Solana, 32-byte hex on EVM. */
  private signatureOf(signedTx: string): string {
    if (this.chain === 'solana') return bs58.encode(createHash('sha512').update(`paper-transfer:${signedTx}`).digest());
    return `0x${createHash('sha256').update(`paper-transfer:${signedTx}`).digest('hex')}`;
  }
}
