// Polls a task every intervalMs without overlapping runs. Pauses while the
// document is hidden and runs at once when it becomes visible again.

export interface VisibilitySource extends EventTarget {
  readonly hidden: boolean;
}

export interface PollerOptions {
  intervalMs: number;
  /** Abort a run that takes longer than this (default: intervalMs * 2.5). */
  timeoutMs?: number;
  doc?: VisibilitySource;
}

export interface Poller {
  start(): void;
  stop(): void;
  /** Runs now (unless a run is in flight), then resumes the interval. */
  refresh(): void;
}

export function createPoller(
  task: (signal: AbortSignal) => Promise<void>,
  { intervalMs, timeoutMs = intervalMs * 2.5, doc = document }: PollerOptions,
): Poller {
  let running = false;
  let inFlight = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const clear = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };

  const schedule = () => {
    clear();
    if (running && !doc.hidden) timer = setTimeout(run, intervalMs);
  };

  async function run() {
    timer = undefined;
    if (!running || inFlight || doc.hidden) return;
    inFlight = true;
    const ctrl = new AbortController();
    const guard = setTimeout(() => ctrl.abort(new Error('timed out')), timeoutMs);
    try {
      await task(ctrl.signal);
    } catch {
      // the task reports its own errors; the poller just keeps going
    } finally {
      clearTimeout(guard);
      inFlight = false;
    }
    schedule();
  }

  const onVisibility = () => {
    if (!running) return;
    if (doc.hidden) clear();
    else if (!inFlight) {
      clear();
      void run();
    }
  };

  return {
    start() {
      if (running) return;
      running = true;
      doc.addEventListener('visibilitychange', onVisibility);
      void run();
    },
    stop() {
      running = false;
      clear();
      doc.removeEventListener('visibilitychange', onVisibility);
    },
    refresh() {
      if (!running || inFlight) return;
      clear();
      void run();
    },
  };
}
