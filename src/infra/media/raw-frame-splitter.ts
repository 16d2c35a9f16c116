/**
 * Cuts ffmpeg's rawvideo output (chunks of any size) into whole frames of `frameBytes` each, for the
 * callers that read one decoder's pictures as they come.
 */
export class RawFrameSplitter {
  private current: Buffer;
  private filled = 0;

  constructor(private readonly frameBytes: number) {
    this.current = Buffer.allocUnsafe(frameBytes);
  }

  /** The frames `chunk` completes, in order (each buffer is the receiver's). */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(chunk.length - offset, this.frameBytes - this.filled);
      chunk.copy(this.current, this.filled, offset, offset + take);
      this.filled += take;
      offset += take;
      if (this.filled < this.frameBytes) continue;
      frames.push(this.current);
      this.current = Buffer.allocUnsafe(this.frameBytes);
      this.filled = 0;
    }
    return frames;
  }

  /** Bytes of a frame begun and not completed (non-zero at the end: the stream was cut or sized otherwise). */
  get partialBytes(): number {
    return this.filled;
  }
}
