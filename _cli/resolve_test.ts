import assert from "node:assert/strict";
import { levenshtein, suggestResource } from "./resolve.ts";
import { BUILTIN_RESOURCE_TYPES, resourceType } from "../api/resources.ts";
import { Widgets } from "../testing/demo_objects.ts";

// A second "events" in another group, as real clusters serve.
const EventsV1 = resourceType({
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  resource: "events",
  namespaced: true,
});
const TYPES = [EventsV1, ...BUILTIN_RESOURCE_TYPES, Widgets];

Deno.test("suggestResource() names the closest served resource", () => {
  const cases: [string, string | undefined][] = [
    ["podz", "pods"],
    ["PODZ", "pods"],
    ["deploymnets", "deployments.apps"],
    ["deploymnets.apps", "deployments.apps"],
    ["confgimaps", "configmaps"],
    ["widgest", "widgets.example.com"],
    ["evnts", "events"],
    ["cj2", "cronjobs.batch"],
    ["zzzzzz", undefined],
    ["ab", undefined],
    ["", undefined],
  ];
  for (const [name, want] of cases) {
    assert.equal(suggestResource(name, TYPES), want, name);
  }
});

Deno.test("levenshtein() counts edits", () => {
  assert.equal(levenshtein("pods", "pods"), 0);
  assert.equal(levenshtein("podz", "pods"), 1);
  assert.equal(levenshtein("", "abc"), 3);
  assert.equal(levenshtein("kitten", "sitting"), 3);
});
