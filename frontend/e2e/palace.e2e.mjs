// The Mind Palace in Chromium against a server whose graph holds
// "Alice works at Acme" (from 2024-01-10) and "Alice works at Globex"
// (from 2025-03-01, which ended Acme). Moves the playhead and checks the
// relations shown exactly, on both axes; opens a node's card.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const SHOTS = process.env.E2E_SHOTS || '/tmp/hyatlas-shots';
mkdirSync(SHOTS, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), 'hyatlas-palace-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  viewport: { width: 1200, height: 1000 },
});
const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(15_000);
page.on('pageerror', (e) => console.error('page error:', e.message));

async function at(date) {
  const secs = date === 'now' ? Math.floor(Date.now() / 1000) + 60 : Math.floor(Date.parse(date) / 1000);
  await page.evaluate((s) => {
    const el = document.querySelector('[data-testid="mp-playhead"]');
    el.max = String(Math.max(Number(el.max), s));
    el.min = String(Math.min(Number(el.min), s));
    el.value = String(s);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, secs);
  await page.waitForTimeout(100);
  return (await page.locator('[data-testid="mp-relations"] li').allTextContents()).map((s) => s.split(/\s+(from|until)\s/)[0].trim()).sort();
}

function same(got, want, what) {
  if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error(`${what}: ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

try {
  await page.goto(process.env.HYATLAS_URL);
  await page.click('[data-testid="nav-palace"]');
  await page.locator('[data-testid="mp-canvas"]').waitFor();

  await page.check('[data-testid="mp-axis-valid"]');
  same(await at('2023-06-01'), [], 'valid axis, 2023-06');
  same(await at('2024-06-01'), ['Alice works at Acme'], 'valid axis, 2024-06');
  same(await at('2025-06-01'), ['Alice works at Globex'], 'valid axis, 2025-06');

  await page.check('[data-testid="mp-axis-recorded"]');
  same(await at('2024-06-01'), [], 'recorded axis before anything was learned');
  same(await at('now'), ['Alice works at Acme', 'Alice works at Globex'], 'recorded axis now (Acme held, closed in March 2025)');
  await page.screenshot({ path: join(SHOTS, 'palace.png'), fullPage: true });

  await page.locator('[data-testid="mp-relations"] li button', { hasText: 'Alice' }).first().click();
  const card = page.locator('[data-testid="mp-card"]');
  await card.waitFor();
  await page.locator('[data-testid="mp-evidence"] li', { hasText: 'Acme' }).first().waitFor();
  await page.locator('[data-testid="mp-evidence"] li', { hasText: 'Globex' }).first().waitFor();
  // The card takes the focus; Escape closes it and gives the focus back.
  same(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Close the card of Alice', 'the card takes the focus');
  await page.keyboard.press('Escape');
  await card.waitFor({ state: 'detached' });
  same(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Alice', 'the focus back on the entity');
  await page.locator('[data-testid="mp-relations"] li button', { hasText: 'Alice' }).first().click();
  await card.waitFor();
  // Find focuses an entity and opens its card; a kind filter hides its relations.
  await page.fill('[data-testid="mp-find"]', 'glob');
  await page.press('[data-testid="mp-find"]', 'Enter');
  await page.locator('[data-testid="mp-card"] h3', { hasText: 'Globex' }).waitFor();
  // Its entity page: what is known of Globex now.
  await page.locator('[data-testid="mp-page"]', { hasText: 'team lead' }).waitFor();
  // The wheel zooms about the pointer: what is under the pointer stays
  // there, so Globex, which Find put at the centre, moves away from it.
  const canvasBox = await page.locator('[data-testid="mp-canvas"]').boundingBox();
  const [cx, cy] = [canvasBox.x + canvasBox.width / 2, canvasBox.y + canvasBox.height / 2];
  await page.mouse.move(cx + 150, cy + 60);
  for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -100);
  await page.waitForTimeout(100);
  const grown = 1.2 ** 3;
  await page.mouse.move(cx + 150 * (1 - grown), cy + 60 * (1 - grown));
  same(await page.getAttribute('[data-testid="mp-canvas"]', 'data-hovered'), 'Globex', 'the node under the pointer after zooming about a point beside it');
  // The card sits beside the graph: it covers none of the toolbar, the
  // canvas or the timeline, so + and − beside Fit work with it open.
  const cardBox = await page.locator('[data-testid="mp-card"]').boundingBox();
  for (const sel of ['[data-testid="mp-canvas"]', '[data-testid="mp-zoom-in"]', '[data-testid="mp-zoom-out"]', 'button:has-text("Fit")', '[data-testid="mp-date"]']) {
    const b = await page.locator(sel).boundingBox();
    const overlaps = b.x < cardBox.x + cardBox.width && cardBox.x < b.x + b.width && b.y < cardBox.y + cardBox.height && cardBox.y < b.y + b.height;
    same(overlaps, false, `the card over ${sel}`);
  }
  await page.screenshot({ path: join(SHOTS, 'palace-card.png') });
  // The same from the keyboard: + and − beside Fit.
  await page.click('button:has-text("Fit")');
  await page.locator('[data-testid="mp-zoom-in"]').focus();
  await page.keyboard.press('Enter');
  same(await page.getAttribute('[data-testid="mp-canvas"]', 'data-zoom'), '1.20', 'the zoom after + from the keyboard');
  await page.click('[data-testid="mp-zoom-out"]');
  await page.click('[data-testid="mp-zoom-out"]');
  same(await page.getAttribute('[data-testid="mp-canvas"]', 'data-zoom'), '0.83', 'the zoom after − twice');
  await page.fill('[data-testid="mp-find"]', 'glob');
  await page.press('[data-testid="mp-find"]', 'Enter');
  await page.locator('[data-testid="mp-card"] h3', { hasText: 'Globex' }).waitFor();
  await page.uncheck('label.kind:has-text("organization") input');
  same((await page.locator('[data-testid="mp-relations"] li').allTextContents()).length, 0, 'relations with organizations hidden');
  await page.check('label.kind:has-text("organization") input');
  // The card opens the Atlas searching for the entity.
  await page.click('[data-testid="mp-open-atlas"]');
  await page.locator('[data-testid="atlas-row"]', { hasText: 'Alice joined Globex' }).first().waitFor();
  same(await page.inputValue('[data-testid="atlas-search"]'), 'Globex', 'the Atlas search');
  console.log('PASS palace e2e');
} catch (err) {
  await page.screenshot({ path: join(SHOTS, 'failed-palace.png'), fullPage: true }).catch(() => {});
  console.error(`FAIL palace e2e: ${err.message}`);
  process.exitCode = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
