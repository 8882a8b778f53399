import { callConnected, expect, hangUp, INDEPENDENT, logInAndConnect, test } from './fixtures.js';

/**
 * Two independent tabs of one user (`tabs: 'independent'`, as before shared tabs; the shared-tabs spec has the default): while the first has a call, the second finds that session and call (recover() on
 * load), offers cleanup only, and cannot start a call; once the first hangs up, the second sees the call end.
 */
test('a second tab of the same user cannot start a call while the first is busy', async ({ page, context }) => {
  await logInAndConnect(page, 'e2e-two-tabs', INDEPENDENT);
  const callId = await callConnected(page);

  const second = await context.newPage();
  await second.goto(INDEPENDENT);
  await expect(second.getByTestId('connection')).toHaveText('recovery_required');
  await expect(second.getByTestId('call-id')).toHaveText(callId);
  // Not "before the reload": this tab never held it.
  await expect(second.getByTestId('recovery-words')).toHaveText(/^A call from another visit or tab is still on\./);
  await expect(second.getByRole('button', { name: 'Call', exact: true })).toHaveCount(0);
  await expect(second.getByRole('button', { name: 'Connect', exact: true })).toHaveCount(0);

  await hangUp(page);
  await expect(second.getByTestId('call-state')).toHaveText('ended');
  await expect(second.getByTestId('busy')).toHaveText('false');
  await expect(second.getByTestId('recovery-words')).toHaveText(/^The call from another visit or tab is over \(Ended: you hung up\)\./);
  await second.close();
});
