/**
 * One rule for "did you mean", shared with the render request's validation in composition/ so that
 * every 422 suggests the same way.
 */
export { closestMatch, jsonPointer } from '../../../composition/src/schema';
