import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { GRAMMAR_START_RULES, headerRulesOf, trimGrammar } from '../../scripts/sip-grammar-trim.js';
import { sipTrim } from '../../scripts/sip-trim.js';

/** The trim of SIP.js's generated grammar that the shipped bundles are built with. */

type Parse = (input: string, options: { startRule: string; data?: unknown }) => unknown;

/** SIP.js's grammar bundled as the build does (trimmed) or as SIP.js ships it, and its `parse`. */
async function grammar(trimmed: boolean): Promise<{ parse: Parse; size: number }> {
  const result = await build({
    stdin: { contents: `export { parse } from 'sip.js/lib/grammar/pegjs/dist/grammar.js';`, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'iife',
    globalName: 'grammar',
    write: false,
    logLevel: 'error',
    plugins: trimmed ? [sipTrim] : [],
  });
  const code = result.outputFiles[0]?.text ?? '';
  return { parse: (runInNewContext(`${code};grammar`) as { parse: Parse }).parse, size: code.length };
}

/** What a parse leaves: SIP.js's parser returns nothing useful and writes its result into `options.data`. */
function parsed(parse: Parse, input: string, startRule: string): string {
  const options: { startRule: string; data?: unknown } = { startRule };
  try {
    parse(input, options);
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
  return JSON.stringify(options.data);
}

/** A value of each kept rule as the link meets it, and one it must refuse. */
const SAMPLES: Record<string, string[]> = {
  Request_Response: ['INVITE sip:alice@example.invalid SIP/2.0', 'SIP/2.0 401 Unauthorized', 'SIP/2.0 200'],
  Contact: ['<sip:a1b2@x.invalid;transport=ws>;expires=600;+sip.instance="<urn:uuid:1>"', '*', '"Desk" <sip:desk@192.0.2.1:5060>, <sips:b@[2001:db8::1]>'],
  Record_Route: ['<sip:proxy.example.invalid;lr;transport=ws>'],
  SIP_URI: ['sip:alice@example.invalid:5061;transport=tcp?subject=hi', 'sips:+15551234;user=phone@gw.invalid', 'not a uri'],
  Name_Addr_Header: ['"Alice" <sip:alice@example.invalid>;tag=abc'],
  Via: ['SIP/2.0/WSS x.invalid;branch=z9hG4bK776;rport=5060;received=192.0.2.1'],
  From: ['"Bob" <sip:bob@example.invalid>;tag=1928301774'],
  To: ['<sip:alice@example.invalid>'],
  Call_ID: ['a84b4c76e66710@pc33.example.invalid'],
  CSeq: ['314159 INVITE', 'x INVITE'],
  Content_Length: ['142'],
  Content_Type: ['application/sdp', 'multipart/mixed;boundary=unique'],
  Content_Disposition: ['session;handling=required'],
  Max_Forwards: ['70'],
  WWW_Authenticate: ['Digest realm="example.invalid", nonce="abc", algorithm=SHA-256, qop="auth,auth-int", opaque="x", stale=TRUE'],
  Proxy_Authenticate: ['Digest realm="example.invalid", nonce="abc", algorithm=MD5'],
  Refer_To: ['<sip:carol@example.invalid?Replaces=abc>'],
  Event: ['refer;id=93809824', 'dialog'],
};

describe('sip-grammar-trim', () => {
  it('parses every kept rule as SIP.js ships it, and refuses the rules it leaves out', async () => {
    const [plain, trimmed] = await Promise.all([grammar(false), grammar(true)]);
    expect(Object.keys(SAMPLES).sort()).toEqual([...GRAMMAR_START_RULES].sort());
    for (const [rule, inputs] of Object.entries(SAMPLES)) {
      // Each rule's first sample is one SIP.js parses, so that two failures alike prove nothing alone.
      expect(parsed(plain.parse, inputs[0]!, rule)).not.toMatch(/^failed/);
      for (const input of inputs) expect(parsed(trimmed.parse, input, rule)).toBe(parsed(plain.parse, input, rule));
    }
    expect(parsed(plain.parse, '1800;refresher=uac', 'Session_Expires')).toBe('{"refresher":"uac","deltaSeconds":1800}');
    expect(parsed(trimmed.parse, '1800;refresher=uac', 'Session_Expires')).toBe('failed: Can\'t start parsing from rule "Session_Expires".');
    expect(trimmed.size).toBeLessThan(plain.size * 0.9);
  });

  it('names the rule SIP.js derives from each header name a bundle parses', () => {
    expect(headerRulesOf('m.parseHeader("www-authenticate");x.parseHeader(\'call-id\', i);y.parseHeader(name)')).toEqual(['WWW_Authenticate', 'Call_ID']);
  });

  it('fails a build whose bundle parses a header by a rule the trim leaves out', async () => {
    const bundling = build({ stdin: { contents: 'export const expiry = (m) => m.parseHeader("session-expires");', loader: 'js' }, write: false, logLevel: 'silent', plugins: [sipTrim] });
    await expect(bundling).rejects.toThrow(/parses Session_Expires, which the grammar trim leaves out/);
  });

  it('refuses a grammar it cannot read rather than leave it whole', () => {
    expect(() => trimGrammar('const peg$startRuleIndices = { Contact: 0 };')).toThrow(/no start rule Request_Response/);
  });
});
