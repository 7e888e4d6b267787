import assert from "node:assert/strict";
import { ListProgress, withProgress } from "./progress.ts";
import type { ListerWatcher, ObjectList } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";
import { nextTurn } from "../testing/turns.ts";

/** A ListProgress for "pods" writing into `out`. */
function progressInto(out: string[], enabled: boolean): ListProgress {
  return new ListProgress("pods", { write: (t) => out.push(t), enabled });
}

function pagedSource(total: number, pageSize: number): ListerWatcher {
  return {
    list(opts) {
      const start = Number(opts.continue ?? 0);
      const end = Math.min(total, start + pageSize);
      const items: KubeObject[] = [];
      for (let i = start; i < end; i++) {
        items.push({ metadata: { name: `p${i}` } });
      }
      const page: ObjectList<KubeObject> = {
        metadata: end < total
          ? { continue: String(end), remainingItemCount: total - end }
          : {},
        items,
      };
      return Promise.resolve(page);
    },
    watch: () => Promise.reject(new Error("not used")),
  };
}

Deno.test("withProgress() counts pages and shows the total from remainingItemCount", async () => {
  const out: string[] = [];
  const progress = progressInto(out, true);
  const lw = withProgress(pagedSource(2500, 1000), progress);
  let page = await lw.list({ limit: 1000 });
  while (page.metadata.continue) {
    page = await lw.list({ limit: 1000, continue: page.metadata.continue });
  }
  assert.equal(progress.loaded, 2500);
  assert.deepEqual(out.map((l) => l.replace("\r\x1b[2K", "")), [
    "Loading pods: 1,000 of 2,500",
    "Loading pods: 2,000 of 2,500",
    "Loading pods: 2,500",
  ]);
  progress.done();
  assert.equal(out.at(-1), "\r\x1b[2K");
  await lw.list({ limit: 1000 });
  assert.equal(progress.loaded, 1000, "a new list starts counting again");
  assert.equal(out.length, 4, "nothing is written once done");
});

Deno.test("ListProgress stays silent when disabled or for a single page", async () => {
  const out: string[] = [];
  const quiet = progressInto(out, false);
  const lw = withProgress(pagedSource(3000, 1000), quiet);
  await lw.list({ limit: 1000 });
  const single = progressInto(out, true);
  await withProgress(pagedSource(10, 1000), single).list({});
  single.done();
  assert.deepEqual(out, []);
  assert.equal(single.loaded, 10);
});

Deno.test("withProgress() counts pages in the order they were requested when a page requested ahead arrives first", async () => {
  const out: string[] = [];
  const progress = progressInto(out, true);
  const source = pagedSource(1200, 500);
  // Page 2 (500 items) is held until page 3 (200 items), requested while
  // page 2 was being read, has arrived.
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const lw = withProgress<KubeObject>({
    list: async (opts) => {
      const page = await source.list(opts);
      if (opts.continue === "500") await held;
      return page;
    },
    watch: source.watch,
  }, progress);
  await lw.list({ limit: 500 });
  const second = lw.list({ limit: 500, continue: "500" });
  let thirdArrived = false;
  const third = lw.list({ limit: 500, continue: "1000" });
  source.list({ continue: "1000" }).then(() => thirdArrived = true);
  await nextTurn();
  assert.equal(thirdArrived, true); // page 3's answer is in, page 2's is not
  release();
  const pages = await Promise.all([second, third]);
  assert.deepEqual(pages.map((p) => p.items.length), [500, 200]);
  assert.deepEqual(out.map((l) => l.replace("\r\x1b[2K", "")), [
    "Loading pods: 500 of 1,200",
    "Loading pods: 1,000 of 1,200",
    "Loading pods: 1,200",
  ]);
});
