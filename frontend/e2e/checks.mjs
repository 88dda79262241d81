// Shared by the accessibility checks: a signed-in Chromium page, steps that
// each add what they find wrong to one list (every step runs), and the
// exit status: 0 when nothing was found, 1 when something was, 2 when the
// check could not run.
//
//   HYATLAS_URL   the dashboard sign-in link
//   CHROMIUM      browser binary (default /usr/bin/chromium)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

/** The failures found so far; check adds one when ok is false. */
export const failures = [];

export function check(ok, msg) {
  if (!ok) failures.push(msg);
}

/**
 * Opens the signed-in dashboard with the launch options given (viewport,
 * deviceScaleFactor, ...), runs each [name, step(page)] in turn, and
 * reports as `name` (a step that throws is a failure too).
 */
export async function runChecks(name, steps, options = {}) {
  const url = process.env.HYATLAS_URL;
  const browser = process.env.CHROMIUM || '/usr/bin/chromium';
  if (!url || !existsSync(browser)) {
    console.error(`FAIL ${name}: ${url ? `no browser at ${browser}` : 'HYATLAS_URL is not set'}`);
    process.exit(2);
  }
  const profile = mkdtempSync(join(tmpdir(), 'hyatlas-e2e-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: browser,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
      viewport: { width: 1280, height: 800 },
      ...options,
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
    await page.goto(url);
    await page.locator('[data-testid="nav-atlas"]').waitFor();
    for (const [step, run] of steps) {
      try {
        await run(page);
      } catch (err) {
        failures.push(`${step}: ${err.message.split('\n')[0]}`);
      }
    }
    if (failures.length) {
      console.error(`FAIL ${name}:\n- ${failures.join('\n- ')}`);
      process.exitCode = 1;
    } else console.log(`PASS ${name}`);
  } catch (err) {
    console.error(`FAIL ${name}: ${err.message}`);
    process.exitCode = 1;
  } finally {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
