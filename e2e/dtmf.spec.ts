import { callConnected, expect, hangUp, logInAndConnect, test } from './fixtures.js';

/**
 * spec 4.9: digits pressed on the keypad during a connected call reach the far end one at a time, in order,
 * by RFC 4733 when negotiated (Chromium always offers telephone-event, so it is rfc4733 here).
 */
test('keypad digits during a call arrive at the simulator in order, by rfc4733', async ({ page, simulator }) => {
  await logInAndConnect(page, 'e2e-dtmf');
  const keypad = page.getByRole('group', { name: 'Keypad' });
  // The keypad is there on demand, during a call only.
  await expect(keypad).toHaveCount(0);

  const callId = await callConnected(page);
  const toggle = page.getByRole('button', { name: 'Keypad' });
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  const pressed = ['1', '5', '#', '*', 'D', '0'];
  for (const digit of pressed) await keypad.getByRole('button', { name: `Dial ${digit}` }).click();

  await expect(page.getByTestId('digits-sent')).toHaveText(pressed.join(''));
  const received = async () => (await simulator.call(callId)).facts.dtmf.map(({ digit, method }) => `${digit}:${method}`);
  await expect.poll(received).toEqual(pressed.map((digit) => `${digit}:rfc4733`));

  // The keyboard works too: focus a key and press Enter.
  await keypad.getByRole('button', { name: 'Dial 9' }).focus();
  await page.keyboard.press('Enter');
  await expect.poll(received).toEqual([...pressed, '9'].map((digit) => `${digit}:rfc4733`));

  await hangUp(page);
  await expect(keypad).toHaveCount(0);
});
