/**
 * A job that cannot succeed however often it is tried (a missing source, an undecodable file): the
 * runner fails it at once with this code instead of letting the queue retry it.
 */
export class JobFailure<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}
