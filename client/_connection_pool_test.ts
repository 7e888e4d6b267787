import assert from "node:assert/strict";
import { ConnectionPool, IDLE_TIMEOUT_MS } from "./_connection_pool.ts";
import { FakeClock } from "../testing/fake_clock.ts";

const closed: string[] = [];
// Idle connections the server leaves alone: their watching read pends.
const conn = (name: string) =>
  ({
    close: () => closed.push(name),
    read: () => new Promise(() => {}),
    ref() {},
    unref() {},
    name,
  }) as unknown as Deno.Conn;
const nameOf = (c: { conn: Deno.Conn } | undefined) =>
  (c?.conn as unknown as { name: string } | undefined)?.name;

Deno.test("ConnectionPool gives the newest idle connection of a key, keeps 25 per key (client-go's MaxIdleConnsPerHost) and 32 in all, and closes them with itself", () => {
  closed.length = 0;
  const pool = new ConnectionPool();
  // Ten informers give back their list connections at once: all are kept
  // for their watches.
  for (let i = 1; i <= 10; i++) pool.put("a", conn(`a${i}`));
  assert.deepEqual(closed, []);
  for (let i = 11; i <= 26; i++) pool.put("a", conn(`a${i}`));
  // A 26th for "a": the oldest goes.
  assert.deepEqual(closed, ["a1"]);
  assert.equal(nameOf(pool.take("a")), "a26");
  assert.equal(nameOf(pool.take("b")), undefined);
  // Keys of rotated certificates: past 32 in all, the oldest go.
  for (let i = 0; i < 10; i++) pool.put(`k${i}`, conn(`k${i}`));
  assert.deepEqual(closed, ["a1", "a2", "a3"]);
  assert.equal(pool.size, 32);
  assert.equal(nameOf(pool.take("k0")), "k0");
  pool.close();
  assert.equal(pool.size, 0);
  pool.put("a", conn("late"));
  assert.equal(closed.length, 3 + 31 + 1);
  assert.equal(closed.at(-1), "late");
});

Deno.test("ConnectionPool closes a connection idle for 90 s (client-go's IdleConnTimeout), not one taken before", async () => {
  closed.length = 0;
  const clock = new FakeClock(0);
  const pool = new ConnectionPool(clock);
  pool.put("a", conn("old"));
  await clock.step(IDLE_TIMEOUT_MS / 2);
  pool.put("a", conn("taken"));
  pool.put("a", conn("new"));
  assert.equal(nameOf(pool.take("a")), "new");
  await clock.step(IDLE_TIMEOUT_MS / 2 - 1);
  assert.deepEqual(closed, []);
  await clock.step(1);
  assert.deepEqual(closed, ["old"]);
  assert.equal(pool.size, 1);
  await clock.step(IDLE_TIMEOUT_MS / 2);
  assert.deepEqual(closed, ["old", "taken"]);
  assert.equal(pool.size, 0);
  // The taken one's timer was stopped: nothing more closes, nothing waits.
  await clock.step(IDLE_TIMEOUT_MS);
  assert.deepEqual(closed, ["old", "taken"]);
  assert.equal(clock.hasWaiters(), false);
  pool.put("a", conn("closing"));
  pool.close();
  assert.equal(clock.hasWaiters(), false);
});
