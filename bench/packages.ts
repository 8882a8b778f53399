import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kb, type Row } from './stats.js';

/**
 * What an integrator downloads and installs: each package's tarball as `npm pack` makes it from the build
 * (`npm run bench` builds first), then installed alone into an empty app, as `npm install <tarball>` does from
 * the registry: the packages that brings and their size on disk.
 */

/** Each package, and what its install must (not) bring: a page's only sip.js, a server's nothing of the page or simulator. */
const PACKAGES: Array<{ workspace: string; name: string; target: string; holds?: (installed: string[]) => boolean }> = [
  { workspace: 'lib', name: 'voice-browser', target: 'sip.js only', holds: (installed) => installed.join() === 'sip.js,voice-browser' },
  { workspace: 'server-proxy', name: '@voice-browser/server', target: 'no werift, ws, sip.js', holds: (installed) => !installed.some((name) => ['werift', 'ws', 'sip.js'].includes(name)) },
  { workspace: 'simulator', name: '@voice-browser/simulator', target: 'measured' },
];

export interface PackageFigure {
  name: string;
  tarball: number;
  unpacked: number;
  files: number;
  /** Every package the install brought, this one included. */
  installed: string[];
  /** Bytes of the app's node_modules after installing it alone. */
  installedBytes: number;
}

const npm = (cwd: string, ...args: string[]) => execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });

function bytesUnder(path: string): number {
  let total = 0;
  for (const entry of readdirSync(path, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

function measure(work: string, workspace: string, name: string): PackageFigure {
  const [packed] = JSON.parse(npm(process.cwd(), 'pack', '-w', workspace, '--ignore-scripts', '--json', '--pack-destination', work)) as Array<{ filename: string; size: number; unpackedSize: number; entryCount: number }>;
  if (!packed) throw new Error(`npm pack -w ${workspace} made nothing`);
  const app = join(work, `app-${workspace}`);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', version: '1.0.0', private: true }));
  npm(app, 'install', '--prefer-offline', '--ignore-scripts', join(work, packed.filename));
  const installed = npm(app, 'ls', '--all', '--parseable')
    .trim()
    .split('\n')
    .filter((path) => path.includes('/node_modules/'))
    .map((path) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
  return { name, tarball: packed.size, unpacked: packed.unpackedSize, files: packed.entryCount, installed: [...new Set(installed)].sort(), installedBytes: bytesUnder(join(app, 'node_modules')) };
}

export async function measurePackages(): Promise<{ figures: PackageFigure[]; rows: Row[] }> {
  const work = mkdtempSync(join(tmpdir(), 'voice-browser-bench-packages-'));
  try {
    const figures: PackageFigure[] = [];
    const rows: Row[] = [];
    for (const pkg of PACKAGES) {
      const figure = measure(work, pkg.workspace, pkg.name);
      figures.push(figure);
      rows.push(
        { figure: `${pkg.name} tarball`, value: `${kb(figure.tarball)} (${figure.files} files, ${kb(figure.unpacked)} unpacked)`, target: 'measured' },
        {
          figure: `${pkg.name} installed alone`,
          value: `${figure.installed.length} packages, ${(figure.installedBytes / 1024 / 1024).toFixed(1)} MB`,
          target: pkg.target,
          met: pkg.holds?.(figure.installed),
        },
      );
    }
    return { figures, rows };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
