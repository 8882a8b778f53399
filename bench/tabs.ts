import type { Page } from 'playwright-core';
import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import { openBenchTabs } from './browser.js';
import { ms, spread, type Row, type Spread } from './stats.js';

/**
 * Many tabs, one phone (docs/bench.md): three tabs of one user in one Chromium, sharing the phone (the library's
 * default). A method called in a follower (`mute()`, which needs no call) until its effect shows in the
 * leader's status; a change of the leader's status until every follower shows it (the target: 50 ms); and the
 * leader tab closed until the next one leads (the target: 1 s).
 * Both tabs' times are `Date.now()` of one browser.
 */

interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
  __seen?: Promise<number>;
}

export interface TabsFigures {
  followerToLeader: Spread;
  leaderToFollowers: Spread;
  /** From the leader tab's close to the next tab leading. */
  takeover: Spread;
}

/** Leader tabs closed, one after another, a fresh tab opened behind the others each time. */
const TAKEOVERS = 5;

/** Arms, in `page`, a wait for its status to show `muted`; the promise is kept in the page. */
const awaitMuted = (page: Page, muted: boolean) =>
  page.evaluate((wanted) => {
    const w = window as unknown as PageGlobals;
    w.__seen = w.when((status) => status.muted === wanted, 5000, `muted ${String(wanted)}`);
  }, muted);
const seenAt = (page: Page) => page.evaluate(() => (window as unknown as PageGlobals).__seen as Promise<number>);

export async function measureTabs(demoUrl: string, runs: number): Promise<{ rows: Row[]; figures: TabsFigures }> {
  const { pages, open, close } = await openBenchTabs(demoUrl, 'bench-tabs', 3);
  try {
    const [leader, follower, other] = pages as [Page, Page, Page];
    await leader.evaluate(() => (window as unknown as PageGlobals).when((status) => status.tabs.leader, 5000, 'the first tab leading'));
    const toLeader: number[] = [];
    const toFollowers: number[] = [];
    for (let run = 0; run < runs; run++) {
      const muted = run % 2 === 0;
      for (const page of pages) await awaitMuted(page, muted);
      const called = await follower.evaluate((wanted) => {
        const at = Date.now();
        (window as unknown as PageGlobals).voice.mute(wanted);
        return at;
      }, muted);
      const [inLeader, inFollower, inOther] = [await seenAt(leader), await seenAt(follower), await seenAt(other)];
      toLeader.push(inLeader - called);
      toFollowers.push(Math.max(inFollower, inOther) - inLeader);
    }
    const takeovers: number[] = [];
    // The lock goes to the tab that has waited longest: the followers in the order they opened.
    let current = leader;
    const waiting = [follower, other];
    for (let run = 0; run < TAKEOVERS; run++) {
      const next = waiting.shift() as Page;
      await next.evaluate(() => {
        const w = window as unknown as PageGlobals;
        w.__seen = w.when((status) => status.tabs.leader, 5000, 'this tab leading');
      });
      const closed = Date.now();
      await current.close();
      takeovers.push((await seenAt(next)) - closed);
      current = next;
      waiting.push(await open());
    }
    const figures = { followerToLeader: spread(toLeader), leaderToFollowers: spread(toFollowers), takeover: spread(takeovers) };
    const slowest = Math.max(...takeovers);
    return {
      figures,
      rows: [
        { figure: "tabs: a follower's mute() → the leader's status shows it", value: `${ms(figures.followerToLeader.median)} median, ${ms(figures.followerToLeader.p95)} p95 (${runs} runs)`, target: 'measured', met: true },
        {
          figure: "tabs: the leader's status → both followers show it",
          value: `${ms(figures.leaderToFollowers.median)} median, ${ms(figures.leaderToFollowers.p95)} p95`,
          target: '<= 50 ms',
          met: figures.leaderToFollowers.median <= 50,
        },
        { figure: 'tabs: the leader tab closed → the next tab leads', value: `${ms(figures.takeover.median)} median, ${ms(slowest)} slowest (${TAKEOVERS} runs)`, target: '<= 1 s', met: slowest <= 1000 },
      ],
    };
  } finally {
    await close();
  }
}
