import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { FREE_PLAN, FREE_PLAN_NAME, PlanLimits, PlansConfig, PublishedPlan, publishedPlans } from '../config/plans';

/**
 * A plan without a limit on renders at once still needs a number for the queue's per-workspace
 * concurrency: more than any deployment runs at once.
 */
const UNLIMITED_CONCURRENCY = 1_000_000;

/** The deployment's plans (`free` plus PLANS_FILE's), read by everything that applies a limit. */
@Injectable()
export class PlanCatalogService {
  private readonly config: PlansConfig;

  constructor(@Inject(APP_CONFIG) appConfig: AppConfig) {
    this.config = appConfig.plans;
  }

  get defaultPlan(): string {
    return this.config.defaultPlan;
  }

  names(): string[] {
    return Object.keys(this.config.plans);
  }

  has(name: string): boolean {
    return Object.hasOwn(this.config.plans, name);
  }

  /**
   * The limits of a plan. A workspace whose plan the operator has since removed from PLANS_FILE
   * gets the built-in free plan's limits (the strictest safe answer) until it is moved.
   */
  limits(name: string): PlanLimits {
    return this.has(name) ? this.config.plans[name] : FREE_PLAN;
  }

  published(): Record<string, PublishedPlan> {
    return publishedPlans(this.config);
  }

  /** The queue's per-workspace concurrency by tier (= plan name); see JobSchedulerService. */
  groupConcurrency(): { default: number; tiers: Record<string, number> } {
    const limit = (plan: PlanLimits) => plan.workspace.concurrentRenders ?? UNLIMITED_CONCURRENCY;
    return {
      default: limit(FREE_PLAN),
      tiers: Object.fromEntries(Object.entries(this.config.plans).map(([name, plan]) => [name, limit(plan)])),
    };
  }

  /** The queue tier of a workspace's jobs: its plan, or `free` for a plan no longer configured. */
  tierOf(name: string): string {
    return this.has(name) ? name : FREE_PLAN_NAME;
  }
}
