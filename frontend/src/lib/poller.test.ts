import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPoller } from './poller';

class FakeDoc extends EventTarget {
  hidden = false;
  setHidden(h: boolean) {
    this.hidden = h;
    this.dispatchEvent(new Event('visibilitychange'));
  }
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('createPoller', () => {
  it('runs at once, then every interval, and stops', async () => {
    const doc = new FakeDoc();
    const task = vi.fn(async () => {});
    const p = createPoller(task, { intervalMs: 2000, doc });
    p.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1999);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(4000);
    expect(task).toHaveBeenCalledTimes(4);
    p.stop();
    await vi.advanceTimersByTimeAsync(10000);
    expect(task).toHaveBeenCalledTimes(4);
  });

  it('keeps polling after a failing run', async () => {
    const doc = new FakeDoc();
    const task = vi.fn(async () => {
      throw new Error('boom');
    });
    const p = createPoller(task, { intervalMs: 2000, doc });
    p.start();
    await vi.advanceTimersByTimeAsync(4000);
    expect(task).toHaveBeenCalledTimes(3);
    p.stop();
  });

  it('pauses while hidden and refreshes at once when visible again', async () => {
    const doc = new FakeDoc();
    const task = vi.fn(async () => {});
    const p = createPoller(task, { intervalMs: 2000, doc });
    p.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(1);
    doc.setHidden(true);
    await vi.advanceTimersByTimeAsync(20000);
    expect(task).toHaveBeenCalledTimes(1);
    doc.setHidden(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(2000);
    expect(task).toHaveBeenCalledTimes(3);
    p.stop();
  });

  it('never overlaps runs and aborts a run that hangs', async () => {
    const doc = new FakeDoc();
    let active = 0;
    let maxActive = 0;
    const signals: AbortSignal[] = [];
    const task = vi.fn(
      (signal: AbortSignal) =>
        new Promise<void>((resolve) => {
          active++;
          maxActive = Math.max(maxActive, active);
          signals.push(signal);
          signal.addEventListener('abort', () => {
            active--;
            resolve();
          });
        }),
    );
    const p = createPoller(task, { intervalMs: 2000, timeoutMs: 5000, doc });
    p.start();
    p.refresh();
    doc.setHidden(true);
    doc.setHidden(false);
    await vi.advanceTimersByTimeAsync(4999);
    expect(task).toHaveBeenCalledTimes(1);
    expect(signals[0].aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(signals[0].aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(2000);
    expect(task).toHaveBeenCalledTimes(2);
    expect(maxActive).toBe(1);
    p.stop();
  });
});
