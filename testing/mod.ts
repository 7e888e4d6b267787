/**
 * Test helpers: a fake clock, an in-memory ListerWatcher and an embedded
 * fake Kubernetes API server.
 *
 * @module
 */

export * from "./fake_clock.ts";
export * from "./demo_workload.ts";
export * from "./demo_cluster.ts";
export * from "./fake_controller_source.ts";
export * from "./fake_api_server.ts";
export * from "./tracked_client.ts";
export * from "./read_text.ts";
