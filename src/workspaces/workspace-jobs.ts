import type { EntityManager } from 'typeorm';

/**
 * What a workspace delete asks of the jobs it owns: their queued entries leave the queues in the
 * delete's transaction (the rows go by cascade). A port, so workspaces imports nothing of jobs;
 * the application root binds it to the jobs module's WorkspaceJobsService.
 */
export abstract class WorkspaceJobs {
  abstract dequeueAll(tx: EntityManager, workspaceId: string): Promise<void>;
}
