/** Largest file the service accepts from a source URL or an upload (spec part 8: 5 GiB). */
export const MAX_FILE_BYTES = 5 * 1024 ** 3;
