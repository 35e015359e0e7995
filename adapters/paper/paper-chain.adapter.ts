/**
 * The paper venue's chains: transfers move the paper ledger instead of a real chain. A
 * transfer is a local write, so besides the life of a live one (`transfer`: signed,
 * persisted, broadcast, looked up by signature) it offers its writes (`ledger`) for the
 * caller to commit with its own records in one commit. A transfer pays no fee.
 */
import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type {
  ChainHealth,
  ChainPort,
  ConfirmationStatus,
  LedgerTransfers,
  RebroadcastOutcome,
  SignedTransfer,
  TransferRequest,
  TransferResult,
} from '../../kernel/ports/chain.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CommitWrite, StorePort } from '../../kernel/ports/store.port.js';
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
  readonly ledger: LedgerTransfers;
  private readonly book: PaperLedger;

  constructor(private readonly options: PaperChainOptions) {
    this.chain = options.chain;
    this.book = new PaperLedger({ store: options.store });
    this.ledger = {
      sign: async (request) => this.sign(request),
      writes: (signed) => this.writes(signed),
    };
  }

  async nativeBalance(address: string): Promise<string> {
    return this.tokenBalance(address, this.chain === 'solana' ? NATIVE_SOL_MINT : NATIVE_EVM_ADDRESS);
  }

  /** Kept by the ledger as the last read of the wallet: a transfer's writes that follow start from it (`writes`). */
  async tokenBalance(address: string, token: string): Promise<string> {
    return (await this.book.balances(this.chain, normalizeAddress(this.chain, address)))[token] ?? '0';
  }

  async transfer(request: TransferRequest): Promise<TransferResult> {
    const signed = this.sign(request);
    const { from, token, amount } = this.parse(signed);
    if (BigInt(await this.tokenBalance(from, token)) < BigInt(amount)) {
      throw new AppError('INSUFFICIENT_BALANCE', 'Insufficient balance for requested withdrawal amount');
    }
    await request.beforeBroadcast?.(signed);
    await this.apply(signed);
    return { txSignature: signed.txSignature };
  }

  async confirmation(txSignature: string): Promise<ConfirmationStatus> {
    const transfer = await this.book.readTransfer(txSignature);
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

  /** The paper "signed bytes": the transfer itself with a random nonce. Pure: the balance is checked where it is applied. */
  private sign(request: Omit<TransferRequest, 'beforeBroadcast'>): SignedTransfer {
    if (request.signer.chain !== walletChainOf(this.chain))
      throw AppError.validation([`signer is a ${request.signer.chain} wallet, not one for ${this.chain}`]);
    if (!/^\d{1,78}$/.test(request.amount)) throw AppError.validation(['amount must be a non-negative integer in base units']);
    const body = {
      chain: this.chain,
      from: normalizeAddress(this.chain, request.signer.address),
      to: normalizeAddress(this.chain, request.to),
      token: request.token ?? (this.chain === 'solana' ? NATIVE_SOL_MINT : NATIVE_EVM_ADDRESS),
      amount: request.amount,
      nonce: randomBytes(16).toString('hex'),
    };
    const signedTx = Buffer.from(JSON.stringify(body)).toString('base64');
    return { txSignature: this.signatureOf(signedTx), signedTx };
  }

  private writes(signed: SignedTransfer): Promise<CommitWrite[]> {
    const transfer = this.parse(signed);
    return this.book.transferWrites(signed.txSignature, { ...transfer, chain: this.chain, at: this.options.clock.now() });
  }

  private async apply(signed: SignedTransfer): Promise<void> {
    const transfer = this.parse(signed);
    await this.book.transfer(signed.txSignature, { ...transfer, chain: this.chain, at: this.options.clock.now() });
  }

  /** The transfer signed bytes carry, once they are shown to be this chain's and untampered. */
  private parse(signed: SignedTransfer): { from: string; to: string; token: string; amount: string } {
    if (this.signatureOf(signed.signedTx) !== signed.txSignature)
      throw AppError.validation(['signed transaction does not match its signature']);
    const parsed = SignedPaperTransfer.safeParse(JSON.parse(Buffer.from(signed.signedTx, 'base64').toString('utf8')));
    if (!parsed.success || parsed.data.chain !== this.chain)
      throw AppError.validation(['signed transaction is not a paper transfer of this chain']);
    const { from, to, token, amount } = parsed.data;
    return { from, to, token, amount };
  }

  /** Shaped like the chain's own: 64-byte base58 on Solana, 32-byte hex on EVM. */
  private signatureOf(signedTx: string): string {
    if (this.chain === 'solana') return bs58.encode(createHash('sha512').update(`paper-transfer:${signedTx}`).digest());
    return `0x${createHash('sha256').update(`paper-transfer:${signedTx}`).digest('hex')}`;
  }
}
