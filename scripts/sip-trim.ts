import type { Plugin } from 'esbuild';

/**
 * An esbuild plugin that leaves out the parts of SIP.js the helper can never reach: it only registers and
 * answers INVITEs, so the outgoing-call class (`Inviter`) and the SUBSCRIBE machinery are replaced by stubs
 * that throw if anything ever did reach them. SIP.js's own modules import them, so tree shaking alone
 * cannot drop them. The unit and e2e suites run the built bundle, which proves nothing needed went missing.
 */

const STUBS: Record<string, string> = {
  'api/inviter.js': 'Inviter',
  'core/dialogs/subscription-dialog.js': 'SubscriptionDialog',
  'core/user-agents/subscribe-user-agent-client.js': 'SubscribeUserAgentClient',
};

export const sipTrim: Plugin = {
  name: 'sip-trim',
  setup(build) {
    build.onLoad({ filter: /sip\.js[\\/]lib[\\/](api[\\/]inviter|core[\\/]dialogs[\\/]subscription-dialog|core[\\/]user-agents[\\/]subscribe-user-agent-client)\.js$/ }, (args) => {
      const key = Object.keys(STUBS).find((path) => args.path.replace(/\\/g, '/').endsWith(`sip.js/lib/${path}`));
      const name = key ? STUBS[key] : undefined;
      if (!name) return undefined;
      return { contents: `export class ${name} { constructor() { throw new Error('voice-browser: ${name} is not part of this build'); } }`, loader: 'js' };
    });
  },
};
