import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import { withDeskBench } from './desk-bench.js';
import { createStamps, STEP_TIMEOUT_MS, type Stamps } from './desk-app.js';
import { ms, spread, staggerMs, type Row, type Spread } from './stats.js';

/**
 * Offer mode (docs/desk.md, "Offer mode"): how soon a caller of an offer-mode queue
 * rings the agent's page, how soon `accept()` has that caller on the line, and how soon a caller whose
 * `call.received` webhook was lost rings all the same. Set up as the `queues` part is: the simulator in its own process;
 * the demo server's app (`createDemoApp`, the demo's queues (`createDemoQueues`), Sales in offer mode with the
 * demo's 2 s wrap-up and the router's default 4 s check) in this one, on loopback, so the moment a webhook
 * reaches the proxy is taken here, in front of the app; one Chromium page with the script-tag library, logged
 * in, connected and `available`, watching nothing but its own status.
 *
 * @remarks
 * Webhook to ringing: both ends are this process's `performance.now()`, the page's end when its status
 * listener's report of `status().offer` (`exposeFunction`) arrives; between them the router's decision, its
 * read of the agent's session, the dequeue with `connectTo`, the service's INVITE and the report's trip over
 * the DevTools protocol. `accept()` to connected: the page's own `performance.now()` at `accept()` and at the
 * `onStatus` that shows the call `connected` (the service's `established`). Each call is then hung up, `busy`
 * false, the agent still `available`, and the next caller comes only once the call's `call.ended` webhook has
 * reached the proxy and the wrap-up has passed, so every offer is made on its webhook, never at a later check.
 *
 * A lost webhook (the simulator's `drop-webhook` on `call.received`): from the control call that makes the
 * caller arrive to the page's report of the offer. No webhook tells the router, so a read of the calls in
 * progress does: the router's own at each check, every `checkIntervalMs` (4 s) while an agent is available
 * (or, with a page watching the queues, the panels' re-read every 4 s, whose answer the router takes and whose
 * republished `call.received` it acts on at once). So the bound is one check interval after the arrival, plus
 * that read, the session read, the dequeue and the INVITE; a read the key's budget refuses (a low-priority
 * read) skips its round and adds an interval, which the bench's key, with room for all, never does. These
 * callers' arrivals are spread over the whole 4 s interval, not a second, so they meet the checks at every
 * phase. The split at the simulator's INVITE and `accept()` to its stamp of the page's 200 OK compare this
 * machine's one clock across processes.
 */

/** What the bench page puts on `window`, and what this part adds. */
interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
  listen(listener: (status: VoiceBrowserStatus) => void): void;
  /** Reports an offer the page shows for the first time to this process (`exposeFunction`). */
  __offerShown(callId: string): Promise<void>;
}

/** The part's figures, as written to bench/results/. */
export interface OffersFigures {
  /** From the `call.received` webhook reaching the proxy's app to the page reporting `status().offer`. */
  webhookToRinging: Spread;
  /**
   * The same, split at the simulator's stamp of its INVITE to the page (`inviteSentAt`, this machine's clock):
   * the proxy's routing and the service's dequeue before it, the page's SIP stack and status after it.
   */
  webhookToInvite: Spread;
  inviteToRinging: Spread;
  /** From `accept()` to `onStatus` showing the call `connected`, in the page. */
  acceptToConnected: Spread;
  /** From `accept()` to the page's answer of the INVITE, as the simulator stamped it (the page's read of the call before it). */
  acceptToAnswered: Spread;
  /** From the control call making a caller arrive, its `call.received` dropped, to the page reporting the offer. */
  lostWebhookToRinging: Spread & { slowest: number };
  /** Each run's figures in ms, in the order run, for the JSON: which run was slow, and whether the first was. */
  samples: Record<'webhookToRinging' | 'webhookToInvite' | 'inviteToRinging' | 'acceptToConnected' | 'acceptToAnswered' | 'lostWebhookToRinging', number[]>;
}

/** The number the callers dialled; the demo's wrap-up; the router's check interval. */
const LINE = '+18005550100';
const WRAP_UP_MS = 2000;
const CHECK_INTERVAL_MS = 4000;
/** Past the wrap-up before the next caller: room for the proxy to have taken the `call.ended` webhook. */
const SETTLE_MS = 250;

/** Connects the page and says it `available`; from then on each new `status().offer` is reported to `offered`. */
async function staffInPage(page: Page, offered: Stamps): Promise<void> {
  await page.exposeFunction('__offerShown', (callId: string) => offered.note(callId, performance.now()));
  await page.evaluate(
    async ({ timeoutMs }) => {
      const w = window as unknown as PageGlobals;
      const seen = new Set<string>();
      w.listen(({ offer }) => {
        if (!offer || seen.has(offer.callId)) return;
        seen.add(offer.callId);
        void w.__offerShown(offer.callId);
      });
      await w.voice.connect();
      await w.voice.setAvailability('available');
      await w.when((status) => status.availability === 'available', timeoutMs, 'availability available');
    },
    { timeoutMs: STEP_TIMEOUT_MS },
  );
}

/** Accepts the offer ringing in the page; ms from `accept()` to `connected`, and `accept()`'s epoch ms; then hangs up and settles. */
async function acceptOnce(page: Page): Promise<[number, number]> {
  return page.evaluate(
    async ({ timeoutMs }) => {
      const { voice, when } = window as unknown as PageGlobals;
      let connectedAt = 0;
      const isConnected = (status: VoiceBrowserStatus) => {
        if (status.call?.state !== 'connected') return false;
        connectedAt ||= performance.now();
        return true;
      };
      const connected = when(isConnected, timeoutMs, 'connected after accept()');
      const [started, startedAt] = [performance.now(), Date.now()];
      try {
        await voice.accept();
        await connected;
      } catch (error) {
        const code = (error as { code?: string }).code;
        throw new Error(`accept(): ${code ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`);
      }
      await voice.hangup();
      await when((status) => !status.busy, timeoutMs, 'busy false after hangup()');
      const { availability } = voice.status();
      if (availability !== 'available') throw new Error(`bench: the agent is ${availability ?? 'unknown'} after the call, not available`);
      return [connectedAt - started, startedAt] as [number, number];
    },
    { timeoutMs: STEP_TIMEOUT_MS },
  );
}

/**
 * `runs` callers arrive one at a time, each rung and accepted; then `runs` more whose `call.received` is lost,
 * each rung and accepted likewise. One measurement script, read top to bottom.
 */
export async function measureOffers(runs: number): Promise<{ rows: Row[]; figures: OffersFigures }> {
  const webhooks = createStamps();
  const offered = createStamps();
  return withDeskBench('bench-offers', webhooks, { wrapUpMs: WRAP_UP_MS }, async ({ desk, control, page }) => {
    await staffInPage(page, offered);
    // The router has heard the agent say available (the PUT nudges a check) before the first caller.
    await sleep(1000);
    /** Accepts the caller ringing, hangs up, and waits out its `call.ended` and the wrap-up. */
    const answer = async (callId: string) => {
      const took = await acceptOnce(page);
      await webhooks.at(`call.ended:${callId}`, 'the call.ended webhook');
      await sleep(WRAP_UP_MS + SETTLE_MS);
      return { took, facts: (await control.inboundCall(callId)).facts };
    };
    const samples: OffersFigures['samples'] = { webhookToRinging: [], webhookToInvite: [], inviteToRinging: [], acceptToConnected: [], acceptToAnswered: [], lostWebhookToRinging: [] };
    for (let run = 0; run < runs; run++) {
      await sleep(staggerMs(run));
      const caller = await control.inbound({ queueId: desk.offerQueueId, from: `+1415555${String(3000 + run)}`, to: LINE });
      const rang = await offered.at(caller.id, 'the offer in the page');
      const received = await webhooks.at(`call.received:${caller.id}`, 'the call.received webhook');
      samples.webhookToRinging.push(rang - received);
      const { took, facts } = await answer(caller.id);
      samples.acceptToConnected.push(took[0]);
      // The simulator's epoch stamps: when the page answered its INVITE, and the INVITE on this process's performance.now() scale.
      samples.acceptToAnswered.push(Date.parse(facts.browserAnsweredAt ?? '') - took[1]);
      const invited = Date.parse(facts.inviteSentAt ?? '') - (Date.now() - performance.now());
      samples.webhookToInvite.push(invited - received);
      samples.inviteToRinging.push(rang - invited);
    }
    for (let run = 0; run < runs; run++) {
      await sleep(staggerMs(run, CHECK_INTERVAL_MS));
      await control.fault({ fault: 'drop-webhook', event: 'call.received', queueId: desk.offerQueueId });
      const asked = performance.now();
      const caller = await control.inbound({ queueId: desk.offerQueueId, from: `+1415555${String(4000 + run)}`, to: LINE });
      samples.lostWebhookToRinging.push((await offered.at(caller.id, 'the offer of a caller whose webhook was lost', 3 * STEP_TIMEOUT_MS)) - asked);
      if (webhooks.has(`call.received:${caller.id}`)) throw new Error(`bench: the call.received of ${caller.id} came though dropped`);
      await answer(caller.id);
    }
    // Away, so the router reads nothing more once the part is over.
    await page.evaluate(() => (window as unknown as PageGlobals).voice.setAvailability('away'));
    await page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
    const lost = samples.lostWebhookToRinging;
    const spreads = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, spread(values)])) as Record<keyof typeof samples, Spread>;
    return report({ ...spreads, lostWebhookToRinging: { ...spreads.lostWebhookToRinging, slowest: Math.max(...lost) }, samples });
  });
}

/** The part's rows beside docs/bench.md's targets. */
function report(figures: OffersFigures): { rows: Row[]; figures: OffersFigures } {
  const both = (s: Spread) => `${ms(s.median)} median, ${ms(s.p95)} p95 (${s.runs} runs)`;
  const { webhookToRinging, webhookToInvite, inviteToRinging, acceptToConnected, acceptToAnswered, lostWebhookToRinging } = figures;
  return {
    figures,
    rows: [
      { figure: 'offers: call.received reaches the proxy → the agent page rings (status().offer)', value: both(webhookToRinging), target: '<= 150 ms median', met: webhookToRinging.median <= 150 },
      { figure: "offers: the same, to the service's INVITE sent / from it to the page ringing", value: `${ms(webhookToInvite.median)} / ${ms(inviteToRinging.median)} median, ${ms(webhookToInvite.p95)} / ${ms(inviteToRinging.p95)} p95`, target: 'measured', met: true },
      { figure: 'offers: accept() → connected (established)', value: both(acceptToConnected), target: '<= 250 ms median', met: acceptToConnected.median <= 250 },
      { figure: "offers: accept() → the page's 200 OK to the INVITE (the simulator's stamp)", value: both(acceptToAnswered), target: 'measured', met: true },
      { figure: 'offers: caller arrives, call.received dropped → the agent page rings', value: `${both(lostWebhookToRinging)}, ${ms(lostWebhookToRinging.slowest)} slowest`, target: '<= 5 s', met: lostWebhookToRinging.slowest <= 5000 },
    ],
  };
}
