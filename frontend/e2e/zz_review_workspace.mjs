// Workspace: another agent typed into the Agent field while the text is
// unsaved, then "Keep editing": which agent does the page name, and which
// one does Save write? Also the "leave with unsaved changes?" question
// from the keyboard.
// Run: HYATLAS_URL=<link> node e2e/zz_review_workspace.mjs
import { open, api, shot, report, focused } from './zz_review_lib.mjs';

const { page, close } = await open({ width: 1000, height: 800 });
try {
  await page.click('[data-testid="nav-workspace"]');
  await page.locator('[data-testid="ws-text"]').waitFor();
  await page.waitForTimeout(400);
  await page.fill('[data-testid="ws-text"]', 'Notes meant for hermes only');
  await page.fill('[data-testid="ws-agent"]', 'other-agent');
  await page.press('[data-testid="ws-agent"]', 'Enter'); // change event
  await page.locator('[data-testid="ws-discard"]').waitFor();
  await page.getByRole('button', { name: 'Keep editing' }).click();
  const field = await page.inputValue('[data-testid="ws-agent"]');
  await page.click('[data-testid="ws-save"]');
  await page.locator('[data-testid="ws-dirty"]').waitFor({ state: 'detached' });
  const hermes = (await api(page, 'GET', '/workspace/hermes/SOUL.md')).body?.content;
  const other = (await api(page, 'GET', '/workspace/other-agent/SOUL.md')).body?.content;
  report(field === 'hermes' || other === 'Notes meant for hermes only',
    `after "Keep editing" the Agent field reads "${field}", but Save wrote to hermes (${JSON.stringify(hermes)}); other-agent has ${JSON.stringify(other)}`);
  await shot(page, 'workspace-agent-field-mismatch.png');

  // Leave with unsaved text, by keyboard
  await page.fill('[data-testid="ws-text"]', 'unsaved again');
  await page.focus('[data-testid="nav-status"]');
  await page.keyboard.press('Enter');
  await page.locator('[data-testid="leave-unsaved"]').waitFor();
  const f = await focused(page);
  report(/leave-/.test(f), `the "Leave and lose it?" question appears; the focus is on ${f}`);
  await page.keyboard.press('Escape');
  await page.waitForTimeout(200);
  report((await page.locator('[data-testid="leave-unsaved"]').count()) === 0, `Escape ${(await page.locator('[data-testid="leave-unsaved"]').count()) ? 'does not dismiss' : 'dismisses'} the question`);
  await shot(page, 'workspace-leave-focus.png');
} finally {
  await close();
}
