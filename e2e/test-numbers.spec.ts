import { expect, logInAndConnect, test } from './fixtures.js';

/**
 * The simulator's quick test numbers (DESIGN.md) end as documented, and the page says so in words. The slow
 * ones (no answer after 8 s, recipient hangup after 5 s, outcome unknown for 10 s) are covered by the
 * simulator's unit tests with shortened timings.
 */
const cases = [
  { to: '+12025550102', state: 'ended', words: 'Ended: the number was busy', sim: { endReason: 'recipient_busy' } },
  { to: '+12025550104', state: 'failed', words: "Failed: the recipient's leg failed, error provider_error", sim: { state: 'failed' } },
] as const;

for (const { to, state, words, sim } of cases) {
  test(`a call to ${to} ends ${state} and the page says "${words}"`, async ({ page, simulator }) => {
    await logInAndConnect(page, `e2e-number-${to.slice(-3)}`);
    await page.getByLabel('Number to call').fill(to);
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await expect(page.getByTestId('call-state')).toHaveText(state);
    await expect(page.getByTestId('busy')).toHaveText('false');
    await expect(page.getByTestId('call-end')).toHaveText(words);
    const callId = (await page.getByTestId('call-id').textContent()) ?? '';
    expect((await simulator.call(callId)).call).toMatchObject({ busy: false, ...sim });
    await expect(page.getByRole('button', { name: 'Call', exact: true })).toBeEnabled();
  });
}

test('a compliance-blocked number is refused before any call, in words, and the page can call again', async ({ page, simulator }) => {
  const sessionId = await logInAndConnect(page, 'e2e-number-105');
  await page.getByLabel('Number to call').fill('+12025550105');
  await page.getByRole('button', { name: 'Call', exact: true }).click();
  await expect(page.getByTestId('error-code')).toContainText('compliance_dnc');
  await expect(page.getByTestId('error-advice')).toContainText('blocked for compliance');
  await expect(page.getByTestId('busy')).toHaveText('false');
  expect(await simulator.callsOfSession(sessionId)).toEqual([]);
  await expect(page.getByRole('button', { name: 'Call', exact: true })).toBeEnabled();
});
