/** The simulator's recipient test numbers, offered in the number field. */
export const TEST_NUMBERS: ReadonlyArray<{ number: string; behaviour: string }> = [
  { number: '+12025550100', behaviour: 'answers at once (tone, then echo)' },
  { number: '+12025550101', behaviour: 'rings 3 s, then answers' },
  { number: '+12025550102', behaviour: 'busy' },
  { number: '+12025550103', behaviour: 'no answer' },
  { number: '+12025550104', behaviour: 'recipient leg fails' },
  { number: '+12025550105', behaviour: 'compliance blocked' },
  { number: '+12025550106', behaviour: 'answers, hangs up after 5 s' },
  { number: '+12025550107', behaviour: 'outcome unknown for 10 s' },
];

/**
 * The caller ids the demo offers as `from`. The simulator takes any E.164 number; a real account would list
 * its own numbers here.
 */
export const FROM_NUMBERS: ReadonlyArray<{ number: string; label: string }> = [
  { number: '+12025550199', label: 'Support line' },
  { number: '+12025550198', label: 'Sales line' },
];
