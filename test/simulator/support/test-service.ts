import { VoiceService, type VoiceServiceOptions } from '../../../simulator/service/voice-service.js';

/**
 * The simulated service in-process, for a test that calls it without ports (the proxy's harness, the REST
 * suites): the simulator's own defaults, at `http://sim.test`, its calls' media on loopback; `options` changes
 * what a suite needs otherwise.
 */
export function createTestService(options: Partial<VoiceServiceOptions> = {}): VoiceService {
  return new VoiceService({
    publicUrl: () => 'http://sim.test',
    host: '127.0.0.1',
    mediaAddresses: 'loopback',
    sessionTtlSeconds: 3600,
    registrationMaxSeconds: 600,
    noAnswerMs: 8000,
    agentAnswerTimeoutMs: 30_000,
    toneMs: 1000,
    ...options,
  });
}
