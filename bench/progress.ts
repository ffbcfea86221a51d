/**
 * The bench's progress on stderr: a cli-progress bar on a terminal, one line per step
 * otherwise (CI logs, the smoke test).
 */
import cliProgress from 'cli-progress';

/** Reports each step as it starts. */
export class Progress {
  readonly #bars: cliProgress.MultiBar | undefined;
  readonly #bar: cliProgress.SingleBar | undefined;
  readonly #started = performance.now();
  #done = 0;
  readonly #total: number;

  constructor(total: number) {
    this.#total = total;
    if (process.stderr.isTTY) {
      // A MultiBar of one bar: only it can print lines above the bar.
      this.#bars = new cliProgress.MultiBar(
        { format: ' {bar} {value}/{total} steps | {duration_formatted} | {step}', stream: process.stderr, hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
      this.#bar = this.#bars.create(total, 0, { step: 'starting' });
    }
  }

  /** Marks the previous step done and names the one starting. */
  step(name: string): void {
    this.#done = Math.min(this.#done + 1, this.#total);
    if (this.#bar) this.#bar.update(this.#done - 1, { step: name });
    else process.stderr.write(`[${this.#done}/${this.#total} ${this.#elapsed()}] ${name}\n`);
  }

  /** Prints a line above the bar (a warning, a failed scenario). */
  log(line: string): void {
    if (this.#bars) this.#bars.log(`${line}\n`);
    else process.stderr.write(`${line}\n`);
  }

  /** Completes the bar. */
  stop(): void {
    this.#bar?.update(this.#total, { step: 'done' });
    this.#bars?.stop();
    process.stderr.write(`bench finished in ${this.#elapsed()}\n`);
  }

  #elapsed(): string {
    const s = Math.round((performance.now() - this.#started) / 1000);
    return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  }
}
