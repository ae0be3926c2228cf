// The engine's spelling of weightDtype (and weightGroupSize): 'int4:G' for a group size; the
// engine checks the dtype names.
export function weightDtypeSpec(dtype: string, groupSize: number | undefined, where: string): string {
  if (groupSize === undefined) return String(dtype);
  if (dtype !== 'int4') throw new TypeError(`${where}: weightGroupSize applies to weightDtype 'int4', not '${dtype}'`);
  if (!Number.isInteger(groupSize) || groupSize <= 0 || groupSize % 4 !== 0 || groupSize > 1e6)
    throw new TypeError(`${where}: weightGroupSize must be a positive multiple of 4, got ${groupSize}`);
  return `int4:${groupSize}`;
}
