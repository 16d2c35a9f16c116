import type { JobEventType } from '../jobs/event-publisher';

/** The events a webhook can subscribe to . Progress events only go to per-request URLs. */
export const SUBSCRIBABLE_EVENTS = [
  'render.completed',
  'render.failed',
  'task.completed',
  'task.failed',
  'asset.ready',
  'brand_kit.ready',
  'batch.completed',
  'webhook.test',
] as const;

export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

export type EventType = SubscribableEvent | JobEventType;

export const PROGRESS_EVENTS: readonly EventType[] = ['render.progress', 'task.progress'];

export function isProgressEvent(type: string): boolean {
  return (PROGRESS_EVENTS as readonly string[]).includes(type);
}
