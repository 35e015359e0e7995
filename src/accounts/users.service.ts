import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';

import type { WalletChain } from '../../kernel/vocabulary/chains.js';

export type { WalletChain };

/** A human operator: one wallet address (sessions). */
export interface User {
  id: string;
  chain: WalletChain;
  walletAddress: string;
  /** Epoch ms. */
  createdAt: number;
  /** The agent `:userId` trading routes act on when no agentId is given. */
  defaultAgentId?: string;
}

const USERS = 'users';
export const USER_COLLECTIONS: CollectionSpec[] = [{ name: USERS, indexes: ['walletAddress'] }];

/** The user id of a wallet: derived from it, so it is known before (and without) a lookup. */
export function userIdOfWallet(chain: WalletChain, walletAddress: string): string {
  return `usr_${createHash('sha256').update(`${chain}:${walletAddress}`).digest('base64url').slice(0, 22)}`;
}

export class UsersService {
  constructor(
    private readonly store: StorePort,
    private readonly clock: ClockPort,
  ) {}

  /**
   * The user of a wallet, created on first sign-in. The id derives from the wallet, so
   * two concurrent first logins create one user (the second create loses the CAS race).
   */
  async ensureByWallet(chain: WalletChain, walletAddress: string): Promise<User> {
    const id = userIdOfWallet(chain, walletAddress);
    const existing = await this.get(id);
    if (existing) return existing;
    const user: User = { id, chain, walletAddress, createdAt: this.clock.now() };
    try {
      await this.store.put(USERS, id, { data: user, expectedVersion: 0, indexes: { walletAddress } });
      return user;
    } catch (error) {
      if (isAppError(error) && error.code === 'VERSION_CONFLICT') return (await this.get(id))!;
      throw error;
    }
  }

  async get(id: string): Promise<User | null> {
    return (await this.store.get<User>(USERS, id))?.data ?? null;
  }

  /**
   * Sets the user's default agent (ownership is the caller's check). Compare-and-set through
   * `updateRecord`: a run of lost races ends in its retryable 409, not in an endless loop.
   */
  async setDefaultAgent(id: string, agentId: string): Promise<User> {
    const { doc } = await updateRecord<User>(this.store, { collection: USERS, id }, (current) => {
      if (!current) throw AppError.notFound('User not found');
      const user = { ...current.data, defaultAgentId: agentId };
      return { data: user, indexes: { walletAddress: user.walletAddress } };
    });
    return doc!.data;
  }
}
