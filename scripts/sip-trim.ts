import { readFile } from 'node:fs/promises';
import type { BuildOptions, Plugin } from 'esbuild';
import { GRAMMAR_START_RULES, headerRulesOf, trimGrammar } from './sip-grammar-trim.js';

/**
 * An esbuild plugin that leaves out the parts of SIP.js the helper can never reach. The helper registers,
 * answers one INVITE, sends INFO, BYE and the re-INVITE that restarts ICE (RFC 8839 section 4.4.1.1.1), and nothing else: it
 * never starts a call's first INVITE nor SUBSCRIBEs. Those client classes are replaced by stubs that throw if
 * anything ever did reach them. SIP.js's core imports them (the user agent core holds a method for each), so
 * tree shaking alone cannot drop them. Only the classes whose stub the bench shows
 * saving bytes are stubbed (docs/bench.md). The e2e suite runs what `lib/dist` ships, trimmed so (the demo
 * imports `voice-browser` by name, which resolves there; the script-tag spec loads the script-tag bundle),
 * which proves nothing needed went missing; the unit tests run the sources, untrimmed.
 *
 * It also drops SIP.js's `log`, `debug` and `warn` statements whose only argument is a literal message, or
 * literals and plain names joined by `+` (a deprecation notice built beforehand goes with its line): the link
 * runs SIP.js's core at the `error` level without a log connector, so below an error nothing can print, yet their
 * text is a share of the gzipped bundle (docs/bench.md, the trim row). Only whole lines of exactly that shape
 * go, each left as an empty statement (so a brace-less `if` above one keeps its meaning); a line that calls
 * anything, and every error, stays.
 *
 * And it keeps, of SIP.js's generated grammar, only the start rules the bundle parses with and what they reach
 * (see {@link trimGrammar}); a bundle that parses a header by a name no kept rule starts fails to build.
 */

const STUBS: Record<string, string> = {
  'core/user-agents/invite-user-agent-client.js': 'InviteUserAgentClient',
  'core/user-agents/subscribe-user-agent-client.js': 'SubscribeUserAgentClient',
};

/** What the stubbed clients parse beyond the kept rules: built without the stubs, the grammar keeps it too. */
const STUBBED_CLIENTS_RULES = ['Subscription_State'];

/**
 * A statement line `this.logger.log(...);`, `debug` or `warn`, whose one argument is a literal, or literals and
 * plain names joined by `+` (`"Received: " + message`): reading a name calls nothing, so dropping it changes
 * nothing but the log.
 */
const DEAD_LOG = /^[ \t]*this\.logger\.(?:log|debug|warn)\((?:"[^"\n]*"|`[^`\n]*`|(?:"[^"\n]*"|[A-Za-z_][\w.]*)(?: \+ (?:"[^"\n]*"|[A-Za-z_][\w.]*))*)\);$/gm;

/** SIP.js module source without its dead `log` and `debug` lines, each left as an empty statement. */
export function dropDeadLogs(source: string): string {
  return source.replace(DEAD_LOG, ';');
}

/** One trim of {@link createSipTrim}, named so the bench can weigh each (a trim that saves nothing goes). */
export type SipTrimPart = 'client stubs' | 'dead log lines' | 'grammar rules';

/** The sip-trim plugin, with every trim but those in `without` (the bench builds with each left out in turn). */
export function createSipTrim(without: readonly SipTrimPart[] = []): Plugin {
  const on = (part: SipTrimPart) => !without.includes(part);
  const rules = on('client stubs') ? GRAMMAR_START_RULES : [...GRAMMAR_START_RULES, ...STUBBED_CLIENTS_RULES];
  return {
    name: 'sip-trim',
    setup(build) {
      build.onLoad({ filter: /sip\.js[\\/]lib[\\/].*\.js$/ }, async (args) => {
        const path = args.path.replace(/\\/g, '/');
        const stub = Object.keys(STUBS).find((module) => path.endsWith(`sip.js/lib/${module}`));
        const name = stub && on('client stubs') ? STUBS[stub] : undefined;
        if (name) return { contents: `export class ${name} { constructor() { throw new Error('voice-browser: ${name} is not part of this build'); } }`, loader: 'js' };
        const source = await readFile(args.path, 'utf8');
        if (on('grammar rules') && path.endsWith('sip.js/lib/grammar/pegjs/dist/grammar.js')) return { contents: trimGrammar(source, rules), loader: 'js' };
        return { contents: on('dead log lines') ? dropDeadLogs(source) : source, loader: 'js' };
      });
      // A header parsed by a name whose rule was left out would fail to parse in the built bundle alone.
      build.onEnd((result) => {
        if (!on('grammar rules')) return;
        const unkept = (result.outputFiles ?? []).flatMap((file) => headerRulesOf(file.text)).filter((rule) => !rules.includes(rule));
        if (unkept.length) throw new Error(`sip-trim: the bundle parses ${[...new Set(unkept)].join(', ')}, which the grammar trim leaves out`);
      });
    },
  };
}

/** Every trim: how the shipped library is built. */
export const sipTrim: Plugin = createSipTrim();

/**
 * How the shipped library is bundled (`npm run build:lib`), and the bench's size figures with it: minified,
 * SIP.js trimmed, and SIP.js's private fields (`_state`, `_ws`, ...: an underscore then a letter) renamed
 * short. No name of that shape crosses the bundle's edge (the DOM, the service's JSON and the page's options
 * have none, and SIP.js never reaches one by a string), so the renaming stays inside SIP.js: the link uses only
 * SIP.js's public members (the core's `userAgentClients`, say), which keep their names.
 */
export const LIB_BUILD_OPTIONS: BuildOptions = {
  bundle: true,
  minify: true,
  target: 'es2020',
  legalComments: 'none',
  mangleProps: /^_[a-zA-Z]/,
  plugins: [sipTrim],
};
