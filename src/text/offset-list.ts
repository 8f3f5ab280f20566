// OffsetList: ascending text offsets, 4 bytes each, growing as they are found (millions of occurrences, no number[] of them).

/** A growable list of non-negative offsets below 2³¹ (any string's length is below that). */
export class OffsetList {
  #items = new Int32Array(64);
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(offset: number): void {
    if (this.#length === this.#items.length) {
      const grown = new Int32Array(this.#items.length * 2);
      grown.set(this.#items);
      this.#items = grown;
    }
    this.#items[this.#length++] = offset;
  }

  /** The offsets found, as a view (no copy). */
  toArray(): Int32Array {
    return this.#items.subarray(0, this.#length);
  }
}
