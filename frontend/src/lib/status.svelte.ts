// Shared live status: one poller feeds the header and the Status view
// (and later pages) so the API is polled once.
import { untrack } from 'svelte';
import { ApiError, getStatus } from './api';
import { createPoller, type Poller } from './poller';
import { applyTitle } from './title';
import type { Status } from './types';

export const POLL_MS = 2000;

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'signed_out';

class StatusStore {
  /** Last good answer; kept while errors are shown. */
  data = $state<Status | null>(null);
  error = $state<ApiError | null>(null);
  connection = $state<Connection>('connecting');
  /** Counts the times the server answered again after a failed read. */
  back = $state(0);

  async load(signal?: AbortSignal): Promise<void> {
    try {
      const s = await getStatus(signal);
      if (this.error) this.back++;
      this.data = s;
      this.error = null;
      this.connection = 'live';
      applyTitle(s.total);
    } catch (err) {
      this.error =
        err instanceof ApiError
          ? err
          : new ApiError(0, 'unreachable', err instanceof Error ? err.message : String(err));
      if (this.error.status === 401) this.connection = 'signed_out';
      else this.connection = this.data ? 'reconnecting' : 'connecting';
    }
  }
}

export const statusStore = new StatusStore();

/**
 * Calls fn each time the server answers again after it did not (a restart,
 * a short outage): a page whose own read failed meanwhile reads again
 * instead of showing the error under a live header. Call it while a
 * component initialises.
 */
export function onReconnect(fn: () => void): void {
  const moved = movedSince(untrack(() => statusStore.back));
  $effect(() => {
    if (moved(statusStore.back)) untrack(fn);
  });
}

/** Returns a check that says whether a count moved since it last looked (at first: since start). */
export function movedSince(start: number): (n: number) => boolean {
  let seen = start;
  return (n) => {
    if (n === seen) return false;
    seen = n;
    return true;
  };
}

/** Starts polling; returns a function that stops it. */
export function startStatusPolling(): () => void {
  const poller: Poller = createPoller((signal) => statusStore.load(signal), {
    intervalMs: POLL_MS,
  });
  poller.start();
  return () => poller.stop();
}
