// What the Snapshots page says about the schedule (pure, tested). every is
// the running snapshot_every setting ("24h", "6h", "off"), or undefined
// while it is not known (the settings could not be read).

export function scheduleText(every?: string): string {
  if (every === 'off') {
    return 'Scheduled snapshots are off (Settings → Snapshot every); HyAtlas still snapshots itself before any restore or upgrade.';
  }
  const when = every === undefined ? 'on a schedule' : every === '24h' ? 'every day' : `every ${every}`;
  return `HyAtlas snapshots itself ${when} and before any restore or upgrade.`;
}

export function emptyText(every?: string): string {
  if (every === 'off') return 'No snapshots yet, and scheduled snapshots are off: make one now with the button above.';
  return 'No snapshots yet. The first is made a minute after HyAtlas starts, or now with the button above.';
}
