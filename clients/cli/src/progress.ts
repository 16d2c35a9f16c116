/** A one-line progress bar on stderr when it is a terminal; nothing otherwise (scripts, --json). */
export class ProgressBar {
  private last = '';

  constructor(private readonly enabled: boolean) {}

  static forTerminal(json: boolean): ProgressBar {
    return new ProgressBar(!json && Boolean(process.stderr.isTTY));
  }

  update(percent: number, label: string): void {
    if (!this.enabled) return;
    const width = 30;
    const filled = Math.round((Math.max(0, Math.min(100, percent)) / 100) * width);
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.round(percent)).padStart(3)}% ${label}`;
    if (line === this.last) return;
    this.last = line;
    process.stderr.write(`\r${line}\x1b[K`);
  }

  done(): void {
    if (this.enabled && this.last) process.stderr.write('\n');
    this.last = '';
  }
}
