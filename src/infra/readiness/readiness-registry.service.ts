import { Injectable } from '@nestjs/common';

export type ReadinessCheck = () => Promise<boolean>;

/**
 * Named readiness checks that modules add for what they need in this process (the renderer adds
 * one where workers run). `GET /v1/ready` runs them beside the database, queue and storage checks.
 */
@Injectable()
export class ReadinessRegistryService {
  private readonly checks = new Map<string, ReadinessCheck>();

  register(name: string, check: ReadinessCheck): void {
    this.checks.set(name, check);
  }

  entries(): [string, ReadinessCheck][] {
    return [...this.checks.entries()];
  }
}
