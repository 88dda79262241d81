// Every control on every page has an accessible name (a screen reader
// says what it is). Heuristic: label / aria-label / aria-labelledby /
// text / title; a placeholder alone does not count.
// Run: HYATLAS_URL=<link> node e2e/zz_review_names.mjs
import { open, report, shot } from './zz_review_lib.mjs';

const { page, close } = await open({ width: 1200, height: 900 });
try {
  for (const id of ['status', 'atlas', 'palace', 'recall', 'snapshots', 'workspace', 'settings']) {
    await page.click(`[data-testid="nav-${id}"]`);
    await page.waitForTimeout(800);
    if (id === 'atlas') { await page.click('[data-testid="add-open"]'); await page.waitForTimeout(100); }
    const nameless = await page.evaluate(() => {
      const out = [];
      for (const el of document.querySelectorAll('button, input, select, textarea, canvas, [role=tab]')) {
        if (el.type === 'hidden' || el.closest('[aria-hidden=true]')) continue;
        const byLabel = [...(el.labels ?? [])].map((l) => l.textContent.trim()).join(' ');
        const byIds = (el.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean).map((i) => document.getElementById(i)?.textContent ?? '').join(' ');
        const name = (el.getAttribute('aria-label') || byIds || byLabel || (el.tagName === 'BUTTON' ? el.textContent : '') || el.title || '').trim();
        const bad = !name || /^[\u2190-\u27ff\u25a0-\u25ff✕×▲▼◀▶]+$/.test(name); // nothing, or a bare symbol
        if (bad) out.push(`${el.tagName.toLowerCase()}${el.type ? '[' + el.type + ']' : ''} testid=${el.dataset.testid ?? '-'} text="${el.textContent.trim().slice(0, 20)}" placeholder="${el.placeholder ?? ''}"`);
      }
      return out;
    });
    report(nameless.length === 0, `${id}: controls without a usable accessible name: ${nameless.length ? '\n    ' + nameless.join('\n    ') : 'none'}`);
  }
} finally {
  await close();
}
