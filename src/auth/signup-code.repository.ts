import { Injectable } from '@nestjs/common';
import { EntityManager, IsNull } from 'typeorm';
import { SignupCode } from './signup-code.entity';

/** The `signup_codes` table: one-time email codes, stored hashed. */
@Injectable()
export class SignupCodeRepository {
  /** An older pending request dies with its code (its pending key with it). */
  async invalidateOpen(tx: EntityManager, workspaceId: string): Promise<void> {
    await tx.update(SignupCode, { workspaceId, invalidatedAt: IsNull(), consumedAt: IsNull() }, { invalidatedAt: new Date() });
  }

  async insert(tx: EntityManager, code: Pick<SignupCode, 'id' | 'workspaceId' | 'codeHash' | 'expiresAt'>): Promise<void> {
    await tx.insert(SignupCode, { ...code, failedAttempts: 0 });
  }

  /** The workspace's newest usable code, row-locked so parallel guesses cannot exceed the attempt limit. */
  lockActive(tx: EntityManager, workspaceId: string): Promise<SignupCode | null> {
    return tx
      .getRepository(SignupCode)
      .createQueryBuilder('c')
      .setLock('pessimistic_write')
      .where('c.workspaceId = :id AND c.consumedAt IS NULL AND c.invalidatedAt IS NULL', { id: workspaceId })
      .orderBy('c.createdAt', 'DESC')
      .getOne();
  }

  async recordFailure(tx: EntityManager, id: string, failedAttempts: number, invalidate: boolean): Promise<void> {
    await tx.update(SignupCode, { id }, { failedAttempts, invalidatedAt: invalidate ? new Date() : null });
  }

  async consume(tx: EntityManager, id: string): Promise<void> {
    await tx.update(SignupCode, { id }, { consumedAt: new Date() });
  }
}
