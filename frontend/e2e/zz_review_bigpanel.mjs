// The Retire panel of a 10 KB memory in a long list (needs the seed of
// zz_review_many.mjs and zz_review_content.mjs) at 800x600: it quotes the
// whole text and sticks to the top of the window; can its Retire button
// be seen while scrolling?
// Run: HYATLAS_URL=<link> node e2e/zz_review_bigpanel.mjs
import { open, shot, report } from './zz_review_lib.mjs';

const { page, close } = await open({ width: 800, height: 600 });
try {
  await page.click('[data-testid="nav-atlas"]');
  const row = page.locator('[data-testid="atlas-row"]', { hasText: 'Ten KB memory' }).first();
  await row.waitFor();
  await row.locator('[data-testid="retire"]').click();
  const btn = page.locator('[data-testid="retire-confirm"]');
  await btn.waitFor();
  const seen = [];
  for (let y = 0; y <= 6000; y += 1000) {
    await page.evaluate((y) => window.scrollTo(0, y), y);
    await page.waitForTimeout(150);
    const b = await btn.boundingBox();
    seen.push(`${y}:${b && b.y >= 0 && b.y + b.height <= 600 ? 'visible' : `at y=${Math.round(b?.y)}`}`);
  }
  report(seen.some((s) => s.includes('visible')), `Retire button while scrolling 0-6000px: ${seen.join(', ')}`);
  await page.evaluate(() => window.scrollTo(0, 3000));
  await page.waitForTimeout(150);
  await shot(page, 'bigpanel-retire-covers-window.png');
} finally {
  await close();
}
