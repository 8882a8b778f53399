import { describe, expect, it } from 'vitest';
import { createAct, noErrors, shownError, voiceActions, type ActionContext, type ErrorView, type PreflightView } from '../../demo/models/voice-actions.js';
import type { PreflightReport, VoiceBrowser, VoiceBrowserStatus } from '../../lib/index.js';
import { DISCONNECTED } from '../support/demo-status.js';

const disconnected = DISCONNECTED;
const lost = { idempotencyKey: 'k_lost', input: { from: '+12025550199', to: '+12025550100' }, phase: 'outcome_unknown' as const };

const skipped = { status: 'skipped' as const, code: null, advice: null };
const REPORT: PreflightReport = {
  verdict: 'ok',
  microphone: { status: 'ok', code: null, advice: null, level: 0.1 },
  signalling: { status: 'ok', code: null, advice: null, sessionMs: 5, registrationMs: 9 },
  media: { ...skipped, setupMs: null, rttMs: null, jitterMs: null, lossPercent: null, mos: null },
  durationMs: 3000,
};

/** A helper that records what the page asked of it, named so the test can tell two helpers apart. */
function fakeHelper(name: string, status: VoiceBrowserStatus, asked: string[]): VoiceBrowser {
  const helper: Partial<VoiceBrowser> = {
    status: () => status,
    connect: async () => void asked.push(`${name}.connect`),
    startCall: async (input, { idempotencyKey }) => {
      asked.push(`${name}.startCall ${input.to} ${idempotencyKey}`);
      throw new Error('no call today');
    },
    sendDtmf: async (digit) => void asked.push(`${name}.sendDtmf ${digit}`),
    answerNext: async (queueId) => {
      asked.push(`${name}.answerNext ${queueId}`);
      throw new Error('nobody is waiting in this queue');
    },
    accept: async () => {
      asked.push(`${name}.accept`);
      throw new Error('nothing rings');
    },
    decline: async () => void asked.push(`${name}.decline`),
    setAvailability: async (availability) => {
      asked.push(`${name}.setAvailability ${availability}`);
      throw new Error('the proxy refused');
    },
    preflight: async (call) => {
      asked.push(`${name}.preflight ${call.to}`);
      return REPORT;
    },
  };
  return helper as VoiceBrowser;
}

/** Waits until the actions started so far have settled. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function context(overrides: Partial<ActionContext>, asked: string[]): ActionContext {
  return { act: (_area, run) => void run().catch(() => undefined), devicesPending: false, rebuild: () => fakeHelper('fresh', disconnected, asked), addDigit: () => undefined, showPreflight: () => undefined, ...overrides };
}

describe('the demo voice actions', () => {
  it('connects on a fresh helper when new devices are picked and nothing is open, else on the same one', async () => {
    const asked: string[] = [];
    voiceActions(fakeHelper('old', disconnected, asked), context({ devicesPending: true }, asked)).connect();
    voiceActions(fakeHelper('old', { ...disconnected, connection: 'ready' }, asked), context({ devicesPending: true }, asked)).connect();
    voiceActions(fakeHelper('old', disconnected, asked), context({}, asked)).connect();
    await settle();
    expect(asked).toEqual(['fresh.connect', 'old.connect', 'old.connect']);
  });

  it('keeps the helper that knows of a call not proven ended, new devices or not: its connect() must refuse', async () => {
    const asked: string[] = [];
    voiceActions(fakeHelper('old', { ...disconnected, busy: true }, asked), context({ devicesPending: true }, asked)).connect();
    await settle();
    expect(asked).toEqual(['old.connect']);
  });

  it('tests the setup on a fresh helper when new devices are picked, showing it running, then its report', async () => {
    const asked: string[] = [];
    const shown: PreflightView[] = [];
    voiceActions(fakeHelper('old', disconnected, asked), context({ devicesPending: true, showPreflight: (view) => shown.push(view) }, asked)).testSetup();
    expect(shown).toEqual([{ running: true, report: null }]);
    await settle();
    expect(asked).toEqual(['fresh.preflight +12025550100']);
    expect(shown.at(-1)).toEqual({ running: false, report: REPORT });
  });

  it('retries a call whose answer was lost under the same key (spec 7)', async () => {
    const asked: string[] = [];
    voiceActions(fakeHelper('old', { ...disconnected, attempt: lost }, asked), context({}, asked)).call('+12025550199', '+12025550100');
    await settle();
    expect(asked).toEqual(['old.startCall +12025550100 k_lost']);
  });

  it('starts a new call after a lost dequeue, never "retrying" it under the dequeue\'s key', async () => {
    const asked: string[] = [];
    const lostClaim = { ...lost, idempotencyKey: 'k_claim', input: { from: '', to: '' }, queueId: 'q_support' };
    voiceActions(fakeHelper('old', { ...disconnected, attempt: lostClaim }, asked), context({}, asked)).call('+12025550199', '+12025550100');
    await settle();
    expect(asked).toHaveLength(1);
    expect(asked[0]).not.toContain('k_claim');
  });

  it('answers the next caller of a queue as an action of the queue panel, where its failure shows', async () => {
    const asked: string[] = [];
    let view: ErrorView = noErrors;
    const act = createAct((change) => (view = change(view)), () => null);
    voiceActions(fakeHelper('old', disconnected, asked), context({ act }, asked)).answerNext('q_support');
    await settle();
    expect(asked).toEqual(['old.answerNext q_support']);
    expect(shownError(null, view)).toEqual({ area: 'queue', error: null, message: 'nobody is waiting in this queue' });
    expect(shownError({ code: 'queue_empty', message: 'm' }, { ...noErrors, lastAction: 'call' })?.area).toBe('queue');
  });

  it('accepts and declines an offered caller as actions of the call, and says availability from the queue panel', async () => {
    const asked: string[] = [];
    let view: ErrorView = noErrors;
    const act = createAct((change) => (view = change(view)), () => null);
    const actions = voiceActions(fakeHelper('old', disconnected, asked), context({ act }, asked));
    actions.decline();
    actions.accept();
    await settle();
    expect(asked).toEqual(['old.decline', 'old.accept']);
    expect(shownError(null, view)).toEqual({ area: 'call', error: null, message: 'nothing rings' });
    actions.setAvailability('available');
    await settle();
    expect(asked.at(-1)).toBe('old.setAvailability available');
    expect(shownError(null, view)).toEqual({ area: 'queue', error: null, message: 'the proxy refused' });
  });

  it('adds a digit to those shown only once it was sent', async () => {
    const asked: string[] = [];
    const digits: string[] = [];
    voiceActions(fakeHelper('old', disconnected, asked), context({ addDigit: (digit) => digits.push(digit) }, asked)).sendDigit('5');
    expect(digits).toEqual([]);
    await settle();
    expect(digits).toEqual(['5']);
  });

  it("keeps an action's failure as its message, beside where it was taken, cleared when the next action starts", async () => {
    let view: ErrorView = noErrors;
    const act = createAct((change) => (view = change(view)), () => null);
    act('call', () => Promise.reject(new Error('refused')));
    await settle();
    expect(shownError(null, view)).toEqual({ area: 'call', error: null, message: 'refused' });
    act('connection', () => new Promise(() => undefined));
    expect(shownError(null, view)).toBeNull();
  });

  it("stops showing the helper's error once a later action succeeds, but never one that came meanwhile", async () => {
    const refused = { code: 'invalid_argument', message: 'to must be E.164' };
    const dropped = { code: 'network_error', message: 'no answer' };
    let helperError: typeof refused | null = refused;
    let view: ErrorView = noErrors;
    const act = createAct((change) => (view = change(view)), () => helperError);
    act('call', () => Promise.resolve());
    await settle();
    expect(shownError(helperError, view)).toBeNull();

    // A new failure while an action runs is not the one the person got past: it stays.
    helperError = refused;
    view = noErrors;
    act('call', async () => {
      helperError = dropped;
    });
    await settle();
    expect(shownError(helperError, view)).toEqual({ area: 'call', error: dropped, message: null });
  });

  it("shows an error one side alone causes on that side, any other beside the last action", () => {
    const afterCall: ErrorView = { ...noErrors, lastAction: 'call' };
    expect(shownError({ code: 'connection_failed', message: 'm' }, afterCall)?.area).toBe('connection');
    expect(shownError({ code: 'compliance_dnc', message: 'm' }, noErrors)?.area).toBe('call');
    expect(shownError({ code: 'browser_session_unavailable', message: 'm' }, afterCall)?.area).toBe('call');
    expect(shownError({ code: 'browser_session_unavailable', message: 'm' }, noErrors)?.area).toBe('connection');
  });
});
