import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../contract/environment.js';
import { appEnvironment } from '../../scripts/start-app.js';
import { inFlagTerms, parseCli, USAGE } from '../../simulator/cli.js';

/** The simulator's command line: flags over SIM_* variables, and one line for what is wrong. */

const KEY = 'vsk_CliTestKey0000000000000000000000';

/** Runs `npm run simulator`'s script with `args`; resolves with its output once it listens, or once it exits. */
function runSimulator(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'simulator/main.ts', ...args], { env: appEnvironment({}), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Listening: what it printed is the answer; it is stopped here.
      if (/API key: .+\n/.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('parseCli', () => {
  it('sets SIM_PORT, SIM_API_KEY and SIM_MEDIA_ADDRESSES from --port, --api-key and --media-addresses, over the environment', () => {
    expect(parseCli(['--port', '0', `--api-key=${KEY}`], { SIM_PORT: '9999', OTHER: 'x' })).toEqual({ help: false, env: { SIM_PORT: '0', SIM_API_KEY: KEY, OTHER: 'x' } });
    expect(parseCli(['--media-addresses', 'loopback'], { SIM_MEDIA_ADDRESSES: 'host' })).toEqual({ help: false, env: { SIM_MEDIA_ADDRESSES: 'loopback' } });
    expect(parseCli(['--edge-profile', 'asterisk'], { SIM_EDGE_PROFILE: 'kamailio' })).toEqual({ help: false, env: { SIM_EDGE_PROFILE: 'asterisk' } });
    expect(parseCli([], { SIM_PORT: '9999' })).toEqual({ help: false, env: { SIM_PORT: '9999' } });
    expect(parseCli(['--help'], {})).toEqual({ help: true });
  });

  it.each([
    [['--prot', '1'], /^simulator: Unknown option '--prot'.*; run with --help for the flags$/],
    [['--port'], /^simulator: Option '--port <value>' argument missing; run with --help for the flags$/],
    [['8090'], /^simulator: Unexpected argument '8090'.*; run with --help for the flags$/],
  ])('refuses %j in one line', (argv, message) => {
    expect(() => parseCli(argv, {})).toThrow(ConfigError);
    expect(() => parseCli(argv, {})).toThrow(message);
  });

  it('tells a bad value by the flag that gave it, and by the variable otherwise', () => {
    const error = new ConfigError('configuration: SIM_API_KEY must be "vsk_" followed by 32 letters or digits');
    expect(inFlagTerms(error, ['--api-key', 'nope']).message).toBe('simulator: --api-key must be "vsk_" followed by 32 letters or digits');
    expect(inFlagTerms(error, ['--port', '1']).message).toBe(error.message);
    const media = new ConfigError('configuration: SIM_MEDIA_ADDRESSES must be "host" or "loopback"');
    expect(inFlagTerms(media, ['--media-addresses=lan']).message).toBe('simulator: --media-addresses must be "host" or "loopback"');
    const edge = new ConfigError('configuration: SIM_EDGE_PROFILE must be "kamailio", "no-crlf-pong", "asterisk", "carrier-sbc"');
    expect(inFlagTerms(edge, ['--edge-profile', 'opensips']).message).toBe('simulator: --edge-profile must be "kamailio", "no-crlf-pong", "asterisk", "carrier-sbc"');
  });
});

describe('npm run simulator', () => {
  it('says where it offers call audio: 127.0.0.1 alone with --media-addresses loopback', async () => {
    const { stdout } = await runSimulator(['--port', '0', '--media-addresses', 'loopback']);
    expect(stdout).toMatch(/^ {2}media on 127\.0\.0\.1 only, for browsers started with loopback switches \(SIM_MEDIA_ADDRESSES=loopback\)$/m);
  });

  it('listens on the --port it was given with the --api-key it was given, and says so', async () => {
    const { stdout } = await runSimulator(['--port', '0', '--api-key', KEY]);
    expect(stdout).toMatch(/^simulator on http:\/\/127\.0\.0\.1:\d+\n {2}VOICE_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/api\n {2}media on (\d+\.){3}\d+\b.*\n {2}SIP edge: kamailio \(SIM_EDGE_PROFILE, --edge-profile\)\n {2}API key: vsk_CliTestKey0+\n$/);
  });

  it('stops with one line and exit code 1 for a bad flag value, and prints the usage for --help', async () => {
    const bad = await runSimulator(['--port', '0', '--api-key', 'not-a-key']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe('simulator: --api-key must be "vsk_" followed by 32 letters or digits');
    const help = await runSimulator(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.trim()).toBe(USAGE);
  });
});
