import { SendTransactionError } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { quoteFromJupiter } from '../../../adapters/solana/jupiter-quote.mapper.js';
import { receivedAmount } from '../../../adapters/solana/solana-execution.js';
import { classifySendError, failureFromTransactionError } from '../../../adapters/solana/solana-transactions.js';

const preflight = (message: string) =>
  new SendTransactionError({ action: 'simulate', signature: '', transactionMessage: `Transaction simulation failed: ${message}` });

describe('Solana failure classification', () => {
  it('reads Jupiter slippage (6001 = 0x1771) from a preflight refusal and from a landed error', () => {
    expect(classifySendError(preflight('Error processing Instruction 3: custom program error: 0x1771'))).toEqual({
      final: true,
      failure: { reason: 'slippage', message: 'Slippage tolerance exceeded in simulation' },
    });
    expect(failureFromTransactionError({ InstructionError: [3, { Custom: 6001 }] })).toEqual({
      reason: 'slippage',
      message: 'Slippage tolerance exceeded (instruction 3)',
    });
  });

  it('treats a missing blockhash, an already processed transaction and transport errors as undecided', () => {
    expect(classifySendError(preflight('Blockhash not found'))).toEqual({ final: false });
    expect(classifySendError(preflight('This transaction has already been processed'))).toEqual({ final: false });
    expect(classifySendError(new TypeError('fetch failed'))).toEqual({ final: false });
  });

  it('names insufficient funds, and anything else as rejected', () => {
    expect(classifySendError(preflight('Attempt to debit an account but found no record of a prior credit.'))).toMatchObject({
      final: true,
      failure: { reason: 'insufficient_balance' },
    });
    expect(classifySendError(preflight('Error processing Instruction 0: custom program error: 0x17'))).toMatchObject({
      final: true,
      failure: { reason: 'rejected' },
    });
    expect(failureFromTransactionError('InsufficientFundsForFee').reason).toBe('insufficient_balance');
    expect(failureFromTransactionError({ InstructionError: [0, { Custom: 1 }] }).reason).toBe('rejected');
  });

  it('reads the amount received from token balances, summed over the owner accounts', () => {
    const balance = (accountIndex: number, owner: string, mint: string, amount: string) => ({
      accountIndex,
      owner,
      mint,
      uiTokenAmount: { amount, decimals: 6, uiAmount: null },
    });
    const meta = {
      err: null,
      preTokenBalances: [balance(1, 'me', 'M', '100'), balance(2, 'pool', 'M', '900')],
      postTokenBalances: [
        balance(1, 'me', 'M', '350'),
        balance(2, 'pool', 'M', '650'),
        balance(3, 'me', 'M', '5'),
        balance(4, 'me', 'X', '7'),
      ],
    };
    expect(receivedAmount(meta, 'me', 'M')).toBe('255');
    expect(receivedAmount(meta, 'pool', 'M')).toBeNull();
    expect(receivedAmount({ err: null }, 'me', 'M')).toBeNull();
  });

  it('maps a quote with a favourable (negative) impact to zero impact and spot = expected', () => {
    const raw = {
      inputMint: 'A',
      inAmount: '1000',
      outputMint: 'B',
      outAmount: '500',
      otherAmountThreshold: '495',
      swapMode: 'ExactIn',
      slippageBps: 100,
      priceImpactPct: '-0.0004',
      routePlan: [{ swapInfo: { inputMint: 'A', outputMint: 'C', feeAmount: '3', feeMint: 'C' } }],
    };
    const quote = quoteFromJupiter(raw, {
      request: { chain: 'solana', inputMint: 'A', outputMint: 'B', amountIn: '1000', slippageBps: 100 },
      venue: 'jupiter',
      expiresAt: 5,
    });
    expect(quote).toMatchObject({ expectedOut: '500', minOut: '495', spotOut: '500', priceImpactBps: 0, feeAmount: '0' });
  });
});
