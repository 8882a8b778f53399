// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { HELPER_METHODS, LEADER_METHODS, TAB_METHODS } from '../../../lib/core/helper-methods.js';
import { FakeTabs } from '../../../lib/testing/fake-tabs.js';
import { createTestVoiceBrowser } from '../../../lib/testing/index.js';

/** The one list of the helper's methods (lib/core/helper-methods.ts) against the helpers the library makes. */

const sorted = (names: Iterable<string>) => [...names].sort();

describe('the helper methods list', () => {
  it('names every method of a helper of its own and of a tab among shared tabs, and nothing else', () => {
    const alone = createTestVoiceBrowser({ tabs: 'independent' }).voice;
    const tabs = new FakeTabs();
    const follower = createTestVoiceBrowser({ tab: tabs.open() }).voice;
    expect(sorted(HELPER_METHODS)).toEqual(sorted(Object.keys(alone)));
    expect(sorted(HELPER_METHODS)).toEqual(sorted(Object.keys(follower)));
  });

  it('names each method once, in one list: the leader runs it, or the tab that calls it', () => {
    expect(new Set(HELPER_METHODS).size).toBe(LEADER_METHODS.length + TAB_METHODS.length);
  });
});
