/**
 * What the generated modules of the built-in groups (`api/<group>/<version>.ts`)
 * import, in one place: they are written with one import specifier, as the
 * modules `cli.ts gen` writes for a project import `@kubecache/core`.
 *
 * @module
 */

export type {
  KubeObject,
  ObjectMeta,
  OwnerReference,
  Status,
  StatusCause,
  StatusDetails,
} from "./object.ts";
export type { ListMeta } from "./listwatch.ts";
export type {
  Condition,
  IntOrString,
  LabelSelector,
  LocalObjectReference,
  ObjectReference,
  Quantity,
  Time,
} from "./well_known.ts";
export { type ResourceType, resourceType } from "./resource_type.ts";
