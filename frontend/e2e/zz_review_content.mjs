// Odd content in the Atlas, drawer and Recall at 800x600: HTML/script,
// markdown, a 10 KB memory, a very long URL/word, RTL text, emoji.
// Run: HYATLAS_URL=<link> node e2e/zz_review_content.mjs
import { open, api, shot, report } from './zz_review_lib.mjs';

const { page, close } = await open({ width: 800, height: 600 });
try {
  await page.evaluate(() => { window.__xss = 0; });
  const items = [
    `<img src=x onerror="window.__xss=1;alert('xss')"><b>bold?</b><script>window.__xss=2</script>`,
    '**markdown** _here_ [link](javascript:alert(1)) `code`',
    'URL https://example.com/' + 'a'.repeat(400) + '?q=' + 'b'.repeat(200),
    'Supercalifragilistic' + 'x'.repeat(600),
    'המשתמש מעדיף עברית ‏(RTL)‏ and English mixed 123',
    'Emoji test 👩‍👩‍👧‍👦🏳️‍🌈 🚀🔥 ZWJ sequences',
    'Ten KB memory: ' + 'lorem ipsum dolor sit amet '.repeat(380),
  ];
  for (const content of items) {
    const r = await api(page, 'POST', '/memories', { content, strength: 0.9 });
    if (r.status >= 300) console.log('seed failed', r.status, JSON.stringify(r.body).slice(0, 200));
  }
  await page.click('[data-testid="nav-atlas"]');
  await page.locator('[data-testid="atlas-row"]').nth(6).waitFor();
  await shot(page, 'content-atlas-800.png');
  const ov = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
  report(ov.sw <= ov.iw, `Atlas at 800 px: page width ${ov.sw} vs window ${ov.iw}`);
  const imgs = await page.evaluate(() => document.querySelectorAll('main img, main script, main b').length);
  report(imgs === 0, `no HTML from memory text rendered in the Atlas (${imgs} elements)`);
  // drawer for the 10 KB memory and the long URL
  for (const [name, text] of [['10kb', 'Ten KB memory'], ['url', 'URL https://example.com/'], ['html', '<img']]) {
    await page.locator('[data-testid="atlas-row"]', { hasText: text }).first().locator('[data-testid="row-open"]').click();
    await page.locator('[data-testid="drawer"] h3').waitFor();
    await page.waitForTimeout(200);
    const d = await page.evaluate(() => { const a = document.querySelector('[data-testid="drawer"]'); return { sw: a.scrollWidth, cw: a.clientWidth }; });
    report(d.sw <= d.cw + 1, `drawer (${name}) content fits its width: scrollWidth ${d.sw} vs ${d.cw}`);
    await shot(page, `content-drawer-${name}.png`);
    await page.keyboard.press('Escape');
  }
  // edit form of the 10 KB memory
  await page.locator('[data-testid="atlas-row"]', { hasText: 'Ten KB memory' }).first().locator('[data-testid="retire"]').click();
  await page.waitForTimeout(200);
  await shot(page, 'content-retire-10kb.png');
  const panel = await page.evaluate(() => { const f = document.querySelector('form[aria-label="Retire a memory"]'); const r = f.getBoundingClientRect(); return { h: Math.round(r.height), vh: innerHeight, btn: document.querySelector('[data-testid="retire-confirm"]').getBoundingClientRect().top }; });
  report(panel.btn < panel.vh, `Retire panel for a 10 KB memory: panel height ${panel.h}px in a ${panel.vh}px window, Retire button at y=${Math.round(panel.btn)}`);
  await page.keyboard.press('Escape');
  // Recall and the prompt block
  await page.click('[data-testid="nav-recall"]');
  await page.fill('[data-testid="recall-query"]', 'url example');
  await page.click('[data-testid="recall-go"]');
  await page.locator('[data-testid="recall-hit"]').first().waitFor();
  await page.waitForTimeout(300);
  const rv = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
  report(rv.sw <= rv.iw, `Recall at 800 px: page width ${rv.sw} vs window ${rv.iw}`);
  const wide = await page.evaluate(() => [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && e.children.length === 0)
    .map((e) => `${e.tagName.toLowerCase()}${e.dataset.testid ? '[' + e.dataset.testid + ']' : ''} ${Math.round(e.getBoundingClientRect().width)}px "${e.textContent.slice(0, 30)}"`));
  console.log('  wider than the window:', wide.join('; '));
  await shot(page, 'content-recall-800.png');
  const xss = await page.evaluate(() => window.__xss);
  report(xss === 0, `no script from memory text ran (window.__xss=${xss})`);
} finally {
  await close();
}
