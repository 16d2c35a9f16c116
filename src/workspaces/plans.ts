/** Plans and their allowances. Only the free plan exists so far (spec part 8). */
export const PLANS = {
  free: { renderMinutesPerMonth: 60 },
} as const;

export type PlanName = keyof typeof PLANS;

export function planOf(name: string) {
  return PLANS[(name in PLANS ? name : 'free') as PlanName];
}
