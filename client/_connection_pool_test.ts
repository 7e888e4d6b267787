import assert from "node:assert/strict";
import { ConnectionPool } from "./_connection_pool.ts";

Deno.test("ConnectionPool gives the newest idle connection of a key, keeps two per key and eight in all, and closes them with itself", () => {
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
  const pool = new ConnectionPool();
  pool.put("a", conn("a1"));
  pool.put("a", conn("a2"));
  pool.put("a", conn("a3")); // a third for "a": the oldest goes
  assert.deepEqual(closed, ["a1"]);
  assert.equal(nameOf(pool.take("a")), "a3");
  assert.equal(nameOf(pool.take("b")), undefined);
  // Keys of rotated certificates: past eight in all, the oldest go.
  for (let i = 0; i < 8; i++) pool.put(`k${i}`, conn(`k${i}`));
  assert.deepEqual(closed, ["a1", "a2"]);
  assert.equal(pool.size, 8);
  assert.equal(nameOf(pool.take("k0")), "k0");
  pool.close();
  assert.equal(pool.size, 0);
  pool.put("a", conn("late"));
  assert.deepEqual(closed.slice(2).sort(), [
    "k1",
    "k2",
    "k3",
    "k4",
    "k5",
    "k6",
    "k7",
    "late",
  ]);
});
