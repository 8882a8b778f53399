import { readFileSync } from 'node:fs';

/**
 * CPU time from /proc, to tell how busy this machine was while a figure was taken: a process's own, and the
 * whole machine's idle and stolen time (what the hypervisor gave other guests of the host).
 */

/** Clock ticks a second of /proc (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** utime + stime of /proc/<pid>/stat (fields 14 and 15, counted after the parenthesised command name). */
export function processCpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The whole machine's CPU seconds so far, summed over its cores: idle (with iowait), and stolen. */
export function machineCpuSeconds(): { idle: number; steal: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal ...
  return { idle: ((fields[3] ?? 0) + (fields[4] ?? 0)) / TICKS_PER_SECOND, steal: (fields[7] ?? 0) / TICKS_PER_SECOND };
}
