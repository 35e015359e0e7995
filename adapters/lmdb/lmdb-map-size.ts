/**
 * The address space an LMDB environment maps from the start (64 GiB; virtual, not memory: the
 * file grows only as data is written). lmdb-js otherwise starts at 128 KB and maps the file
 * again each time it outgrows its map, keeping the earlier mappings; a page read through
 * several of them counts several times in the process's RSS (measured at 100,000 agents and
 * 50,000 strategies: 12 mappings of a 569 MB file, 1,313 MB of file RSS, 568 MB counted once).
 * A database past this size still grows, by remapping, as before.
 */
export const LMDB_MAP_SIZE = 2 ** 36;
