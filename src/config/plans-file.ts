import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { BUILT_IN_PLANS, FREE_PLAN_NAME, planFromPublished, PlanLimits, PlansConfig } from './plans';

const count = z.number().int().min(0).nullable();
const minutes = z.number().min(0).nullable();

/** One plan of PLANS_FILE: the keys of `limits.plans` in `/v1/capabilities`, each required; null is unlimited. */
const PLAN = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, 'must be 1-40 lower-case letters, digits, "-" or "_"'),
  render_minutes_per_month: minutes,
  transcribe_minutes_per_month: minutes,
  job: z.strictObject({ frames: count, pixels_per_frame: count, pixel_frames: count, elements: count, media_seconds: minutes }),
  workspace: z.strictObject({
    webhooks: count,
    api_keys: count,
    open_uploads: count,
    projects: count,
    brand_kits: count,
    // 0 would leave the workspace's renders queued forever.
    concurrent_renders: z.number().int().min(1).nullable(),
  }),
});

const PLANS_FILE = z.strictObject({ plans: z.array(PLAN) });

/**
 * The deployment's plans: the built-in `free` plus those of PLANS_FILE, and DEFAULT_PLAN. Every
 * problem is pushed onto `problems` (start-up then fails listing all of them).
 */
export function loadPlans(file: string | null, defaultPlan: string | null, problems: string[]): PlansConfig {
  const plans: Record<string, PlanLimits> = { ...BUILT_IN_PLANS.plans };
  if (file !== null) {
    for (const [name, plan] of Object.entries(readPlansFile(file, problems))) plans[name] = plan;
  }
  const chosen = defaultPlan ?? FREE_PLAN_NAME;
  if (!Object.hasOwn(plans, chosen)) {
    problems.push(`DEFAULT_PLAN "${chosen}" is not a plan (known: ${Object.keys(plans).join(', ')}${file ? '' : '; define it in PLANS_FILE'})`);
  }
  return { plans, defaultPlan: chosen };
}

function readPlansFile(file: string, problems: string[]): Record<string, PlanLimits> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    problems.push(`PLANS_FILE ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    return {};
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    problems.push(`PLANS_FILE ${file} is not JSON: ${(error as Error).message}`);
    return {};
  }
  const parsed = PLANS_FILE.safeParse(json);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(`PLANS_FILE ${file}: ${describe(issue, json)}`);
    return {};
  }
  const plans: Record<string, PlanLimits> = {};
  parsed.data.plans.forEach((plan, index) => {
    if (plan.name === FREE_PLAN_NAME) {
      problems.push(`PLANS_FILE ${file}: plans[${index}] is named "free", the built-in plan; give it another name and set DEFAULT_PLAN to it`);
    } else if (Object.hasOwn(plans, plan.name)) {
      problems.push(`PLANS_FILE ${file}: plans[${index}] repeats the name "${plan.name}"`);
    } else {
      plans[plan.name] = planFromPublished(plan);
    }
  });
  return plans;
}

/** `plans[1] ("team").job.frames: must be a whole number ≥ 0 or null`, in the operator's terms. */
function describe(issue: z.core.$ZodIssue, json: unknown): string {
  const where = issue.path
    .map((part, i) => {
      if (typeof part === 'number') {
        const name = i === 1 ? planName(json, part) : null;
        return `[${part}]${name ? ` ("${name}")` : ''}`;
      }
      return `${i === 0 ? '' : '.'}${String(part)}`;
    })
    .join('');
  let what = issue.message;
  if (issue.code === 'invalid_type' && issue.input === undefined) what = 'is missing';
  else if (issue.code === 'too_small' || (issue.code === 'invalid_type' && issue.expected === 'number')) {
    what = `must be ${issue.code === 'too_small' && issue.minimum === 1 ? 'a whole number ≥ 1' : 'a number ≥ 0'} or null (unlimited)`;
  } else if (issue.code === 'unrecognized_keys') what = `has unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')}`;
  return `${where || '(top level)'} ${what}`;
}

function planName(json: unknown, index: number): string | null {
  const plans = (json as { plans?: unknown[] } | null)?.plans;
  const name = Array.isArray(plans) ? (plans[index] as { name?: unknown } | null)?.name : null;
  return typeof name === 'string' ? name : null;
}
