/** Unsigned LEB128 varints: the byte streams of the name index and the dictionary-coded columns. */
export class VarintWriter {
  private readonly bytes: number[] = [];
  varint(value: number): void {
    let v = value;
    while (v >= 0x80) {
      this.bytes.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    this.bytes.push(v);
  }
  buffer(): Buffer {
    return Buffer.from(this.bytes);
  }
}

export class VarintReader {
  private at = 0;
  constructor(private readonly data: Uint8Array) {}
  get position(): number {
    return this.at;
  }
  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.data[this.at++];
      if (byte === undefined) throw new Error('search index: truncated varint stream');
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  }
}
