import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { demoSecurityHeaders } from '../../../demo/server/security-headers.js';

/** The CSP the demo answers with, for a service at `baseUrl` and the edges named. */
async function connectSrc(baseUrl: string, edges?: string[]): Promise<string> {
  const app = new Hono().use('*', demoSecurityHeaders(baseUrl, edges)).get('/', (c) => c.text('ok'));
  const csp = (await app.request('/')).headers.get('content-security-policy') ?? '';
  return /connect-src ([^;]*)/.exec(csp)?.[1] ?? '';
}

describe("the demo's connect-src", () => {
  it("allows the service's own WebSocket origin alone when no edge is named", async () => {
    expect(await connectSrc('https://voice.example.com/api')).toBe("'self' wss://voice.example.com");
  });

  it("adds the origin of each SIP edge in front of the service, whose host and port are seldom the service's", async () => {
    expect(await connectSrc('http://127.0.0.1:8090/api', ['ws://127.0.0.1:5066/', 'wss://edge.example.com/sip'])).toBe("'self' ws://127.0.0.1:8090 ws://127.0.0.1:5066 wss://edge.example.com");
  });
});
