/**
 * Async helpers: `Coalescer` (one restart at a time) and `withTimeout`.
 */

/**
 * One restart at a time, however many are asked for.
 *
 * `request()` runs the task if it is idle. While it runs, every further request shares
 * ONE follow-up run, which starts when the current run ends: a burst of settings
 * changes, a key update and a click on "Restart Server" cost at most two restarts, and
 * the last one sees the latest state. Every caller's promise settles when a run that
 * started after its request has finished.
 */
export class Coalescer {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly task: () => Promise<void>) {}

  request(): Promise<void> {
    if (this.queued !== undefined) {
      return this.queued;
    }
    if (this.running !== undefined) {
      const after = this.running.then(
        () => undefined,
        () => undefined, // the current run's failure is its own callers' business
      );
      this.queued = after.then(() => {
        this.queued = undefined;
        return this.start();
      });
      return this.queued;
    }
    return this.start();
  }

  /** True while a run is in progress or queued. */
  get busy(): boolean {
    return this.running !== undefined || this.queued !== undefined;
  }

  /** Settles when the runs in progress or queued now are over; never rejects, never starts one. */
  async idle(): Promise<void> {
    while (this.queued !== undefined || this.running !== undefined) {
      await (this.queued ?? this.running)!.then(
        () => undefined,
        () => undefined,
      );
    }
  }

  private start(): Promise<void> {
    const run: Promise<void> = this.task().finally(() => {
      if (this.running === run) {
        this.running = undefined;
      }
    });
    this.running = run;
    return run;
  }
}

export class TimeoutError extends Error {}

/** `promise`, or a TimeoutError after `ms` milliseconds (the promise itself is not stopped). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
