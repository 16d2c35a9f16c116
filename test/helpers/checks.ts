export type Rgb = readonly number[];

/**
 * Collects every failed check of a test, with the observed value, and asserts none failed: one
 * render checks many features, and a failure should list them all, not stop at the first.
 */
export class Checks {
  private readonly failures: string[] = [];

  /** `colourTolerance`: how far each channel may be from the expected one, by default. */
  constructor(private readonly colourTolerance: number) {}

  colour(label: string, actual: Rgb, expected: Rgb, tolerance = this.colourTolerance): void {
    const ok = expected.every((value, i) => Math.abs(actual[i] - value) <= tolerance);
    if (!ok) this.failures.push(`${label}: rgb(${actual.slice(0, 3).join(', ')}), expected ≈ rgb(${expected.join(', ')}) ±${tolerance}`);
  }

  that(label: string, ok: boolean, observed: unknown): void {
    if (!ok) this.failures.push(`${label}: observed ${JSON.stringify(observed)}`);
  }

  near(label: string, actual: number, expected: number, tolerance: number): void {
    this.that(`${label} (expected ${Math.round(expected * 100) / 100} ±${tolerance})`, Math.abs(actual - expected) <= tolerance, actual);
  }

  assertAll(): void {
    expect(this.failures).toEqual([]);
  }
}
