// What a browser bundle gets for '@voice-browser/server' (the package's "browser" condition): a build that
// stops, naming why, since this package holds the voice API key and must never reach a page. `export *` makes
// Vite and esbuild alike fail on the unresolvable specifier, which reads as the message.
export * from '@voice-browser/server cannot go into a browser bundle: it holds your voice API key. Import it from server code only; the page uses the voice-browser package';
