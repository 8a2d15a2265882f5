import { ValidationError } from "./errors";

/**
 * A PUT's body `id`, when sent (not null), must name the resource of the path (uuids compared
 * case-insensitively): 400 naming `id` otherwise. One rule for every PUT that takes an id in both.
 */
export function assertBodyIdIsPathId(
  bodyId: string | null | undefined,
  pathId: string,
  message = "must equal the path's id",
): void {
  if (bodyId != null && bodyId.toLowerCase() !== pathId.toLowerCase()) {
    throw new ValidationError([{ path: "id", message }]);
  }
}
