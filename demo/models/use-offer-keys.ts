import { useEffect } from 'preact/hooks';
import { offerKey, type OfferKey } from '../offer-labels.js';

/**
 * The ringing card's keyboard shortcuts (`offerKey` says which keys): listened for on the whole page while an
 * offer rings, so the agent answers without finding the button, and never while typing in a field.
 */
export function useOfferKeys(ringing: boolean, act: (key: OfferKey) => void): void {
  useEffect(() => {
    if (!ringing) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.repeat) return;
      const target = event.target instanceof HTMLElement ? event.target : null;
      const key = offerKey({ key: event.key, altKey: event.altKey, ctrlKey: event.ctrlKey, metaKey: event.metaKey, target });
      if (!key) return;
      event.preventDefault();
      act(key);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [ringing, act]);
}
