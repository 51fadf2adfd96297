// The on-disk schema of a RocksDBStore (statecheck/rocksdb_store.h; docs/formats.md): one
// definition, which the engine writes and reads and `statecheck inspect` reads.
//
//   column family "default"          the store's data: key -> value, as the writer put them
//   column family "statecheck.meta"  the store's own records:
//     "offset/<partition>"   -> decimal changelog offset committed with the data (T7)
//     "position/<partition>" -> decimal input offset of the committed position (T8)
//     "format"               -> kStoreFormatCurrent ("1") or kStoreFormatLegacy ("0")
//     "status"               -> kStoreStatusOpen while open; absent after a clean close (T7)
// A store with no "format" key is new (or from before formats were recorded).
#ifndef STATECHECK_STORE_SCHEMA_H_
#define STATECHECK_STORE_SCHEMA_H_

namespace statecheck {

inline constexpr char kStoreMetaFamily[] = "statecheck.meta";
inline constexpr char kStoreOffsetPrefix[] = "offset/";
inline constexpr char kStorePositionPrefix[] = "position/";
inline constexpr char kStoreFormatKey[] = "format";
inline constexpr char kStoreStatusKey[] = "status";
inline constexpr char kStoreFormatCurrent[] = "1";
inline constexpr char kStoreFormatLegacy[] = "0";
inline constexpr char kStoreStatusOpen[] = "open";

}  // namespace statecheck

#endif  // STATECHECK_STORE_SCHEMA_H_
