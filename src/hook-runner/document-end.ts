/**
 * Whether the bytes read so far hold one whole top-level JSON object or array, found in one pass over each chunk as it
 * arrives (depth of brackets outside strings). The runner then parses once, instead of trying JSON.parse on everything
 * read so far at every chunk that ends in `}`: a 16 MiB brief full of `}` would have been parsed hundreds of times and
 * run past the deadline, which fails open. Bytes of a multi-byte UTF-8 character are all >= 0x80: never a bracket or
 * a quote.
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export class DocumentEnd {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private started = false;

  /** Feeds the next chunk; true when a top-level value closed in it (later bytes are the caller's to judge). */
  feed(chunk: Uint8Array): boolean {
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    let closed = false;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
        this.started = true;
      } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0 && this.started) closed = true;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return closed;
  }
}
