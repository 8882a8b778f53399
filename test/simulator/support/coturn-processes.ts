import { readdirSync, readFileSync } from 'node:fs';

/**
 * The coturn processes a given process started, read from /proc (proc(5)): a test's way to find the coturn
 * behind a simulator, and to prove it gone, without asking the simulator.
 */

/** The state letter and parent PID of `pid` from /proc/PID/stat, or undefined once it is gone. */
function statOf(pid: number): { state: string; ppid: number; comm: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields after the last ')' are fixed.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const [state = '', ppid = '0'] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state, ppid: Number(ppid), comm };
  } catch {
    return undefined;
  }
}

/** The PIDs of the `turnserver` processes whose parent is `parentPid`. */
export function coturnChildren(parentPid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const stat = statOf(pid);
      return stat?.ppid === parentPid && stat.comm === 'turnserver';
    });
}

/** Whether `pid` no longer runs: gone, or a zombie no one has reaped yet. */
export function processGone(pid: number): boolean {
  const stat = statOf(pid);
  return stat === undefined || stat.state === 'Z';
}

/** The command line of `pid`, its arguments apart. */
export function commandLine(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}
