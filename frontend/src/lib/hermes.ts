// What the Settings page says about the Hermes connection (pure, tested).
import type { HermesState } from './types';

/** How long ago t was, in words ("just now", "5 min ago", "3 h ago", "2 d ago"). */
export function ago(t: string | null, now: number): string {
  if (!t) return '';
  const s = Math.max(0, Math.round((now - Date.parse(t)) / 1000));
  if (s < 45) return 'just now';
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

/** The one-line state of the connection. */
export function hermesLine(st: HermesState): string {
  if (!st.installed) {
    return st.home_exists
      ? `Hermes is not connected (Hermes home: ${st.hermes_home}).`
      : `No Hermes home at ${st.hermes_home} yet; connecting creates it, ready for when Hermes is installed.`;
  }
  if (!st.active) {
    const p = st.provider ? `uses "${st.provider}"` : 'uses its built-in memory only';
    return `The plugin is installed, but Hermes ${p}: connect to make HyAtlas its memory again.`;
  }
  const update = st.outdated ? ` An update (${st.bundled_version}) is ready.` : '';
  return `Connected: Hermes uses HyAtlas as its memory (plugin ${st.plugin_version}, ${st.hermes_home}).${update}`;
}

/** The contact line: when the plugin last called. */
export function contactLine(st: HermesState, now: number): string {
  if (!st.installed) return '';
  return st.last_contact
    ? `Last contact from Hermes: ${ago(st.last_contact, now)}.`
    : 'No contact from Hermes yet (it calls at the start of each Hermes session).';
}

/** What disconnecting puts back. */
export function restoresTo(st: HermesState): string {
  return st.previous_set && st.previous_provider ? `"${st.previous_provider}"` : "Hermes's built-in memory";
}
