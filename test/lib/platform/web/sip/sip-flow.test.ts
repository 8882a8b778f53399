import { describe, expect, it } from 'vitest';
import { LoggerFactory } from 'sip.js/lib/core/log/logger-factory.js';
import { Levels } from 'sip.js/lib/core/log/levels.js';
import { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';
import { Grammar } from 'sip.js/lib/grammar/grammar.js';
import { failTransactionsInFlight } from '../../../../../lib/platform/web/sip/sip-flow.js';

/**
 * The requests of a dead flow (lib/platform/web/sip/sip-flow.ts) on SIP.js's real core, over a transport that takes every
 * message and answers none: the socket died under them.
 */

function deadFlow() {
  const loggerFactory = new LoggerFactory();
  loggerFactory.level = Levels.error;
  const aor = Grammar.URIParse('sip:agent@edge.invalid')!;
  const sent: string[] = [];
  const core = new UserAgentCore(
    {
      aor,
      contact: { pubGruu: undefined, tempGruu: undefined, uri: aor, toString: () => `<${aor}>` },
      displayName: '',
      loggerFactory,
      hackViaTcp: false,
      routeSet: [],
      sipjsId: 'test',
      supportedOptionTags: [],
      supportedOptionTagsResponse: [],
      userAgentHeaderFieldValue: 'test',
      viaForceRport: false,
      viaHost: 'page.invalid',
      authenticationFactory: () => undefined,
      transportAccessor: () => ({ protocol: 'WS', send: async (message: string) => void sent.push(message) }),
    },
    {},
  );
  return { core, aor, sent };
}

describe('the requests of a dead flow', () => {
  it('fails every request still waiting at once with a 503: an INVITE, an INFO, a BYE, an OPTIONS and a REGISTER', async () => {
    const { core, aor, sent } = deadFlow();
    const failed: string[] = [];
    for (const method of ['INVITE', 'INFO', 'BYE', 'OPTIONS', 'REGISTER']) {
      const request = core.makeOutgoingRequestMessage(method, aor, aor, aor, {});
      const onReject = ({ message }: { message: { statusCode?: number } }) => void failed.push(`${method} ${message.statusCode}`);
      if (method === 'INVITE') core.invite(request, { onReject });
      else if (method === 'REGISTER') core.register(request, { onReject });
      else core.request(request, { onReject });
    }
    await Promise.resolve();
    expect(sent).toHaveLength(5);

    failTransactionsInFlight(core);
    expect(failed).toEqual(['INVITE 503', 'INFO 503', 'BYE 503', 'OPTIONS 503', 'REGISTER 503']);
    // The INVITE's failure is acknowledged (RFC 3261 section 17.1.1.3), and nothing waits any more.
    await Promise.resolve();
    expect(sent.at(-1)).toMatch(/^ACK /);
    failTransactionsInFlight(core);
    expect(failed).toHaveLength(5);
    core.dispose();
  });
});
