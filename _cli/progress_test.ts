import assert from "node:assert/strict";
import { ListProgress, withProgress } from "./progress.ts";
import type { ListerWatcher, ObjectList } from "../api/listwatch.ts";
import type { KubeObject } from "../api/object.ts";

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
