import type { VoiceBrowserStatus } from '../../core/types.js';

/**
 * Option `closeProtection`: while this tab holds a call's audio, leaving the page asks for confirmation, since a
 * reload or close ends that audio for good (spec 4.9: never reattached). The listener is there only meanwhile.
 */
export function createCloseProtection(page: EventTarget | undefined): (status: VoiceBrowserStatus) => void {
  const confirm = (event: Event) => {
    event.preventDefault();
    // Chromium before 119 and Safari ask only when returnValue is set as well.
    (event as BeforeUnloadEvent).returnValue = '';
  };
  let guarding = false;
  return (status) => {
    const holdsCall = status.busy && status.audio !== 'none' && status.audio !== 'ended';
    if (!page || holdsCall === guarding) return;
    guarding = holdsCall;
    if (guarding) page.addEventListener('beforeunload', confirm);
    else page.removeEventListener('beforeunload', confirm);
  };
}
