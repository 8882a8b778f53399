/**
 * What `work` resolves to, or `late()` once `ms` have passed without it: a shared store that stalls must not
 * hold a request (or a readiness check) for longer. The timer is cleared either way.
 */
export async function withinDeadline<T>(work: Promise<T>, ms: number, late: () => T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late()), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
