/**
 * Recordings as files (`RecordingDesk`): a WAV file of 16-bit linear PCM, mono (the RIFF header Microsoft's
 * multimedia specification fixes: 44 bytes before the samples), and the single byte range a download asks for
 * (RFC 9110 section 14).
 */

/** The bytes before the samples of a PCM WAV file: RIFF chunk, `fmt ` chunk, `data` chunk header. */
export const WAV_HEADER_BYTES = 44;

/** A WAV file of `frames` (16-bit signed samples, in order), mono at `sampleRate`. */
export function wavFile(frames: readonly Int16Array[], sampleRate: number): Buffer {
  const samples = frames.reduce((sum, frame) => sum + frame.length, 0);
  const dataBytes = samples * 2;
  const file = Buffer.alloc(WAV_HEADER_BYTES + dataBytes);
  file.write('RIFF', 0, 'ascii');
  file.writeUInt32LE(36 + dataBytes, 4);
  file.write('WAVE', 8, 'ascii');
  file.write('fmt ', 12, 'ascii');
  file.writeUInt32LE(16, 16); // the fmt chunk's size for PCM
  file.writeUInt16LE(1, 20); // WAVE_FORMAT_PCM
  file.writeUInt16LE(1, 22); // channels
  file.writeUInt32LE(sampleRate, 24);
  file.writeUInt32LE(sampleRate * 2, 28); // bytes per second
  file.writeUInt16LE(2, 32); // block align: one 16-bit sample
  file.writeUInt16LE(16, 34); // bits per sample
  file.write('data', 36, 'ascii');
  file.writeUInt32LE(dataBytes, 40);
  let at = WAV_HEADER_BYTES;
  for (const frame of frames) {
    for (const sample of frame) at = file.writeInt16LE(sample, at);
  }
  return file;
}

/** The bytes a `Range` header asks for, first and last included. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The one byte range of a `Range: bytes=...` header over a representation of `size` bytes (RFC 9110 section
 * 14.1.2): `first-last`, `first-` or the suffix `-length`, the last position clipped to the end. Undefined means
 * the header is to be ignored and the whole answered `200` (absent, another unit, invalid, or several ranges,
 * which this server does not combine); `unsatisfiable` is a `416` (section 15.5.17).
 */
export function byteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const length = Number(last);
    if (length === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}
