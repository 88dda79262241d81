// Window/tab title. Inside the Wails window the runtime object exists and
// the native title is set too (a test reads it to prove counts are live).

/** The subset of the Wails v2 JS runtime used here (no generated bindings). */
export interface WailsRuntime {
  WindowSetTitle?: (title: string) => void;
}

declare global {
  interface Window {
    runtime?: WailsRuntime;
  }
}

/** Where a title is applied: `window` in the app, a fake in tests. */
export interface TitleHost {
  document: { title: string };
  runtime?: WailsRuntime;
}

export function memoriesTitle(total: number): string {
  return `HyAtlas · ${total} ${total === 1 ? 'memory' : 'memories'}`;
}

/** Sets document.title and, inside Wails, the native window title. Returns the title. */
export function applyTitle(total: number, host: TitleHost = window): string {
  const title = memoriesTitle(total);
  host.document.title = title;
  const runtime = host.runtime;
  if (typeof runtime?.WindowSetTitle === 'function') {
    try {
      runtime.WindowSetTitle(title);
    } catch {
      // the native title is a nicety; never break the page over it
    }
  }
  return title;
}
