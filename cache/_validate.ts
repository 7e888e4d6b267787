/**
 * The argument checks cache/'s public entry points use; they live in api/
 * so that client/, workqueue/ and leaderelection/ word their messages with
 * the same value formatter.
 *
 * @module
 */

export * from "../api/validate.ts";
