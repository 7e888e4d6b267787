import assert from "node:assert/strict";
import {
  levenshtein,
  resolveResource,
  UnknownResourceError,
} from "./resolve.ts";
import { BUILTIN_RESOURCE_TYPES, resourceType } from "../client/resources.ts";

const Widgets = resourceType({
  apiVersion: "example.com/v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
  shortNames: ["wd"],
});
// A second "events" in another group, as real clusters serve.
const EventsV1 = resourceType({
  apiVersion: "events.k8s.io/v1",
  kind: "Event",
  resource: "events",
  namespaced: true,
  shortNames: ["ev"],
});
const TYPES = [...BUILTIN_RESOURCE_TYPES, EventsV1, Widgets];

Deno.test("resolveResource() accepts plural, singular, short name and kind", () => {
  for (const name of ["pods", "pod", "po", "Pod", "PODS"]) {
    assert.equal(resolveResource(name, TYPES).resource, "pods", name);
  }
  assert.equal(resolveResource("deploy", TYPES).kind, "Deployment");
  assert.equal(resolveResource("wd", TYPES), Widgets);
  assert.equal(resolveResource("widget", TYPES), Widgets);
});

Deno.test("resolveResource() honours name.group and name.version.group", () => {
  assert.equal(resolveResource("deployments.apps", TYPES).group, "apps");
  assert.equal(resolveResource("deployments.v1.apps", TYPES).group, "apps");
  assert.equal(resolveResource("widgets.example.com", TYPES), Widgets);
  assert.equal(resolveResource("events.events.k8s.io", TYPES), EventsV1);
  assert.throws(
    () => resolveResource("pods.apps", TYPES),
    UnknownResourceError,
  );
});

Deno.test("resolveResource() prefers the core group on a tie", () => {
  const ev = resolveResource("ev", [EventsV1, ...BUILTIN_RESOURCE_TYPES]);
  assert.equal(ev.group, "");
});

Deno.test("resolveResource() suggests the closest name for an unknown one", () => {
  const cases: [string, string | undefined][] = [
    ["podz", "pods"],
    ["deploymnets", "deployments.apps"],
    ["confgimaps", "configmaps"],
    ["widgest", "widgets.example.com"],
    ["zzzzzz", undefined],
  ];
  for (const [name, suggestion] of cases) {
    assert.throws(() => resolveResource(name, TYPES), (e) => {
      assert.ok(e instanceof UnknownResourceError);
      assert.equal(e.suggestion, suggestion, name);
      assert.match(e.message, new RegExp(`Unknown resource type "${name}"`));
      return true;
    });
  }
});

Deno.test("levenshtein() counts edits", () => {
  assert.equal(levenshtein("pods", "pods"), 0);
  assert.equal(levenshtein("podz", "pods"), 1);
  assert.equal(levenshtein("", "abc"), 3);
  assert.equal(levenshtein("kitten", "sitting"), 3);
});
