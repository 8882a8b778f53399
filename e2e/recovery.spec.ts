import { callConnected, expect, logInAndConnect, reloadConfirmed, screenshot, test } from './fixtures.js';

/**
 * spec 4.9: after a reload during a call, recover() shows the leftover session and its call with cleanup
 * controls only (no audio, no credentials); Hang up ends the call at the service, End session ends the
 * session, and then Connect works again.
 */
test('a reload during a call shows recovery_required with the call and cleanup only; cleaning up lets the page connect again', async ({ page, simulator }) => {
  const sessionId = await logInAndConnect(page, 'e2e-recovery');
  const callId = await callConnected(page);
  // At least three seconds in: a busy page's clock may show each second late, or skip one.
  await expect(page.getByTestId('call-time')).toHaveText(/^0:(0[3-9]|[1-5]\d)$/);

  // The browser asks before a reload ends the call's audio (closeProtection).
  await reloadConfirmed(page);
  await expect(page.getByTestId('connection')).toHaveText('recovery_required');
  // The recovered call's time counts from the service's answeredAt, not from the reload.
  await expect(page.getByTestId('call-time')).toHaveText(/^0:(0[3-9]|[1-5]\d)$/);
  await expect(page.getByTestId('session-id')).toHaveText(sessionId);
  await expect(page.getByTestId('call-id')).toHaveText(callId);
  await expect(page.getByTestId('busy')).toHaveText('true');
  await screenshot(page, '05-recovery-required');
  await expect(page.getByRole('region', { name: 'Recovered call' })).toBeVisible();
  await expect(page.getByTestId('recovery-words')).toHaveText(/^A call from before this page was reloaded is still on\./);

  // Only the cleanup controls: Hang up and End session; nothing that would call, connect or renew.
  const buttons = page.getByRole('button');
  await expect(buttons).toHaveText(['Hang up', 'End session']);
  await expect(page.getByRole('group', { name: 'Keypad' })).toHaveCount(0);

  await page.getByRole('button', { name: 'Hang up' }).click();
  await expect(page.getByTestId('busy')).toHaveText('false');
  await expect(page.getByTestId('call-state')).toHaveText('ended');
  // The words follow: the recovered call is over, only the session is left to end.
  await expect(page.getByTestId('recovery-words')).toHaveText('The call from before this page was reloaded is over (Ended: you hung up). End the session, then connect again.');
  expect((await simulator.call(callId)).call).toMatchObject({ state: 'ended', busy: false, endReason: 'api_hangup' });

  await page.getByRole('button', { name: 'End session' }).click();
  await expect(page.getByTestId('connection')).toHaveText('disconnected');
  await expect(page.getByTestId('session-id')).toHaveText('—');
  const current = await page.evaluate(async () => (await (await fetch('/voice/browser-sessions')).json()) as { session: unknown });
  expect(current.session).toBeNull();

  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await expect(page.getByTestId('connection')).toHaveText('ready');
  await expect(page.getByTestId('session-id')).not.toHaveText(sessionId);
});
