import type { VoiceBrowser, VoiceBrowserStatus } from 'voice-browser';
import { viewOf } from './phone-view.js';

/** Makes the helper; the phone passes the status callback that renders it. */
export type CreateHelper = (onStatus: (status: VoiceBrowserStatus) => void) => VoiceBrowser;

const TEMPLATE = `
  <h1>Phone</h1>
  <p data-id="headline" aria-live="polite"></p>
  <p data-id="problem" role="alert" hidden></p>
  <label>From <input data-id="from" value="+12025550199" inputmode="tel" autocomplete="off"></label>
  <label>To <input data-id="to" value="+12025550100" inputmode="tel" autocomplete="off"></label>
  <div>
    <button data-id="connect">Connect</button>
    <button data-id="call">Call</button>
    <button data-id="hangup">Hang up</button>
    <button data-id="mute" aria-pressed="false">Mute</button>
    <button data-id="renew">Renew</button>
    <button data-id="disconnect">Disconnect</button>
  </div>`;

/**
 * Renders a phone into `root` and wires its buttons to the helper. The helper's status is the only truth:
 * every render is `viewOf(status)`, and a failed action shows through `status.error`, so the handlers only
 * start actions. Returns the helper.
 */
export function mountPhone(root: HTMLElement, create: CreateHelper): VoiceBrowser {
  root.innerHTML = TEMPLATE;
  const part = <T extends HTMLElement>(id: string): T => {
    const element = root.querySelector<T>(`[data-id="${id}"]`);
    if (!element) throw new Error(`the phone's template lacks ${id}`);
    return element;
  };
  const buttons = {
    connect: part<HTMLButtonElement>('connect'),
    call: part<HTMLButtonElement>('call'),
    hangup: part<HTMLButtonElement>('hangup'),
    mute: part<HTMLButtonElement>('mute'),
    renew: part<HTMLButtonElement>('renew'),
    disconnect: part<HTMLButtonElement>('disconnect'),
  };

  function render(status: VoiceBrowserStatus): void {
    const view = viewOf(status);
    part('headline').textContent = view.headline;
    const problem = part('problem');
    problem.hidden = view.problem === null;
    problem.textContent = view.problem ?? '';
    buttons.connect.disabled = !view.canConnect;
    buttons.call.disabled = !view.canCall;
    buttons.call.textContent = view.callLabel;
    buttons.hangup.disabled = !view.canHangUp;
    buttons.mute.disabled = !view.canMute;
    buttons.mute.setAttribute('aria-pressed', String(status.muted));
    buttons.renew.disabled = !view.canRenew;
    buttons.disconnect.disabled = !view.canDisconnect;
  }

  const voice = create(render);
  // A rejected action is already in status.error, which render() shows; nothing more to do with it here.
  const run = (action: () => Promise<unknown>) => () => void action().catch(() => undefined);

  buttons.connect.addEventListener('click', run(() => voice.connect()));
  buttons.call.addEventListener(
    'click',
    run(() => {
      // Retrying an attempt whose outcome is unknown repeats it (same key, same input): it never dials twice.
      const attempt = voice.status().attempt;
      if (attempt?.phase === 'outcome_unknown') return voice.startCall(attempt.input, { idempotencyKey: attempt.idempotencyKey });
      const input = { from: part<HTMLInputElement>('from').value.trim(), to: part<HTMLInputElement>('to').value.trim() };
      return voice.startCall(input, { idempotencyKey: crypto.randomUUID() });
    }),
  );
  buttons.hangup.addEventListener('click', run(() => voice.hangup()));
  buttons.mute.addEventListener('click', () => voice.mute(!voice.status().muted));
  buttons.renew.addEventListener('click', run(() => voice.renew()));
  buttons.disconnect.addEventListener('click', run(() => voice.disconnect()));

  render(voice.status());
  // After a reload the user's session and call may still be at the service: show them.
  void voice.recover().catch(() => undefined);
  return voice;
}
