import { describe, expect, it } from 'vitest';
import { emptyText, scheduleText } from './snapshots';

describe('scheduleText', () => {
  it.each([
    ['24h', 'HyAtlas snapshots itself every day and before any restore or upgrade.'],
    ['6h', 'HyAtlas snapshots itself every 6h and before any restore or upgrade.'],
    ['off', 'Scheduled snapshots are off (Settings → Snapshot every); HyAtlas still snapshots itself before any restore or upgrade.'],
    [undefined, 'HyAtlas snapshots itself on a schedule and before any restore or upgrade.'],
  ])('snapshot_every %s', (every, text) => expect(scheduleText(every)).toBe(text));
});

describe('emptyText', () => {
  it.each([
    ['24h', 'No snapshots yet. The first is made a minute after HyAtlas starts, or now with the button above.'],
    [undefined, 'No snapshots yet. The first is made a minute after HyAtlas starts, or now with the button above.'],
    ['off', 'No snapshots yet, and scheduled snapshots are off: make one now with the button above.'],
  ])('snapshot_every %s', (every, text) => expect(emptyText(every)).toBe(text));
});
