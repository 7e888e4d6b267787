// A response body made of prepared chunks, shared by the watch benchmarks
// (client_bench.ts and compare/_watch_inproc.ts): decoding is measured
// without HTTP or copies.

/**
 * A byte stream handing out `chunks` in order, one per pull, then closing.
 * With `highWaterMark` 0 a chunk is pulled only when the reader asks.
 */
export function chunkStream(
  chunks: Uint8Array[],
  highWaterMark = 1,
): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < chunks.length) c.enqueue(chunks[i++]);
      else c.close();
    },
  }, { highWaterMark });
}
