import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, LessThan } from 'typeorm';
import type { EventType, SubscribableEvent } from './webhook-events';
import { Webhook } from './webhook.entity';

/** The `webhooks` table: workspace endpoints and the events they subscribe to. */
@Injectable()
export class WebhookRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  countInWorkspace(tx: EntityManager, workspaceId: string): Promise<number> {
    return tx.countBy(Webhook, { workspaceId });
  }

  async insert(tx: EntityManager, webhook: Pick<Webhook, 'id' | 'workspaceId' | 'url' | 'events' | 'enabled'>): Promise<Webhook> {
    await tx.insert(Webhook, webhook);
    return tx.findOneByOrFail(Webhook, { id: webhook.id });
  }

  /** Newest first, below the cursor. */
  listInWorkspace(workspaceId: string, take: number, before?: string): Promise<Webhook[]> {
    return this.db.getRepository(Webhook).find({
      where: { workspaceId, ...(before ? { id: LessThan(before) } : {}) },
      order: { id: 'DESC' },
      take,
    });
  }

  findInWorkspace(workspaceId: string, id: string): Promise<Webhook | null> {
    return this.db.getRepository(Webhook).findOneBy({ id, workspaceId });
  }

  async update(id: string, changes: { url?: string; events?: SubscribableEvent[]; enabled?: boolean }): Promise<void> {
    await this.db.getRepository(Webhook).update({ id }, changes);
  }

  /** Its deliveries go with it (foreign key). */
  async delete(id: string): Promise<void> {
    await this.db.getRepository(Webhook).delete({ id });
  }

  /** The workspace's enabled webhooks subscribed to `type`. */
  subscribedTo(tx: EntityManager, workspaceId: string, type: EventType): Promise<Webhook[]> {
    return tx
      .getRepository(Webhook)
      .createQueryBuilder('w')
      .where('w.workspaceId = :workspaceId AND w.enabled AND :type = ANY(w.events)', { workspaceId, type })
      .orderBy('w.id')
      .getMany();
  }
}
