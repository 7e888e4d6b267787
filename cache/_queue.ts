// Internal building blocks shared by FIFO, DeltaFIFO and Heap: a broadcast
// wake-up (Go's sync.Cond) and a pop serialiser (the
// queue lock client-go holds while `process` runs). The requeue rule of pop
// is in fifo.ts, beside RequeueError.

/**
 * A broadcast wake-up, the JS stand-in for Go's `sync.Cond`: `wait()`
 * resolves at the next `notify()`; every waiter re-checks its condition.
 */
export class Wakeup {
  #resolve: (() => void) | undefined;
  #promise: Promise<void> | undefined;
  // Pre-bound: a consumer waits once per watch event when events come one
  // by one, so no closure per wait.
  #park = (resolve: () => void): void => {
    this.#resolve = resolve;
  };

  /** A promise that resolves at the next {@linkcode Wakeup.notify}. */
  wait(): Promise<void> {
    if (this.#promise === undefined) this.#promise = new Promise(this.#park);
    return this.#promise;
  }

  /** Wake every current waiter. */
  notify(): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#promise = undefined;
    resolve?.();
  }
}

/**
 * Runs async tasks one at a time, in call order. client-go runs a pop's
 * `process` under the queue lock, so two pops never overlap; this keeps that
 * guarantee when `process` is async. With nothing in flight a task starts
 * at once, synchronously, which saves the promise hops of a chain.
 */
export class Serial {
  #inFlight = 0;
  #tail: Promise<unknown> = Promise.resolve();

  /** Run `task` after every earlier task has settled. */
  run<R>(task: () => Promise<R>): Promise<R> {
    const result = this.#inFlight === 0 ? task() : this.#tail.then(task);
    this.#inFlight++;
    const done = () => {
      this.#inFlight--;
    };
    this.#tail = result.then(done, done);
    return result;
  }
}
