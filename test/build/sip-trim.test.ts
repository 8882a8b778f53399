import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { dropDeadLogs, sipTrim } from '../../scripts/sip-trim.js';

/** The SIP.js trimming the shipped bundles are built with (scripts/build-lib.ts). */

async function bundleSip(contents: string, trimmed: boolean): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'error',
    plugins: trimmed ? [sipTrim] : [],
  });
  return result.outputFiles[0]?.text ?? '';
}

const USER_AGENT = `export { UserAgentCore } from 'sip.js/lib/core/user-agent-core/user-agent-core.js';`;

describe('sip-trim', () => {
  it('replaces every client the helper never uses with a stub that throws, and keeps the ones it does', async () => {
    const plain = await bundleSip(USER_AGENT, false);
    const trimmed = await bundleSip(USER_AGENT, true);
    for (const name of ['InviteUserAgentClient', 'SubscribeUserAgentClient']) {
      expect(plain).not.toContain(`${name} is not part of this build`);
      expect(trimmed).toContain(`voice-browser: ${name} is not part of this build`);
    }
    // The server side and the clients in use remain, the re-INVITE that restarts ICE among them.
    expect(trimmed).toContain('InviteServerTransaction = class extends');
    expect(trimmed).toContain('InviteClientTransaction = class extends');
    expect(trimmed).toContain('ReInviteUserAgentClient = class extends');
    expect(trimmed).toContain('RegisterUserAgentClient = class extends');
    expect(trimmed).toContain('ByeUserAgentClient = class extends');
    expect(trimmed).toContain('InfoUserAgentClient = class extends');
    expect(trimmed.length).toBeLessThan(plain.length);
  });

  it('drops literal log, debug and warn lines of SIP.js and keeps its errors', async () => {
    const plain = await bundleSip(USER_AGENT, false);
    const trimmed = await bundleSip(USER_AGENT, true);
    for (const line of ['this.logger.log("No ACK for 2xx response received, attempting retransmission")', 'this.logger.warn("Request-URI does not point to us.")']) {
      expect(plain).toContain(line);
      expect(trimmed).not.toContain(line);
    }
    // One that joins literals and names is dropped too (reading a name calls nothing).
    expect(plain).toContain('this.logger.warn(statusCode + " apparently in authentication loop, cannot authenticate")');
    expect(trimmed).not.toContain('this.logger.warn(statusCode + " apparently in authentication loop, cannot authenticate")');
    expect(trimmed).toContain('this.logger.error(');
  });

  it('leaves a statement in place of each dropped line, so a brace-less if keeps its body', () => {
    const source = [
      'if (ready)',
      '    this.logger.log("ready");',
      'start();',
      '  this.logger.debug(`state ${this.state}`);',
      '  this.logger.log("a", b);',
      '  this.logger.warn("gone");',
      '  this.logger.warn(message);',
      '  this.logger.log("Sent: " + request.method + "\\n");',
      '  this.logger.log("Sent: " + describe(request));',
      '  this.logger.error("kept");',
    ].join('\n');
    expect(dropDeadLogs(source).split('\n')).toEqual([
      'if (ready)',
      ';',
      'start();',
      ';',
      '  this.logger.log("a", b);',
      ';',
      ';',
      ';',
      '  this.logger.log("Sent: " + describe(request));',
      '  this.logger.error("kept");',
    ]);
  });
});
