import Foundation

/// The memory a run may take, set by the operator (`--memory-budget`, the spec's `memoryBudget`;
/// default 64 MiB), and how the parts of a run that hold memory share it.
///
/// A run's memory is a base that no setting changes, `base`, 46 MiB: the process itself (the
/// runtime, Foundation and its ICU data, SQLite, the binary: 38 MiB measured for the 48
/// fruits), the reader's buffers and the decoder's tape for records of ordinary size, the rows
/// of shared tables a run remembers having written (`rowCacheBytes`), SQLite's page caches
/// beside the run's own (`temporaryCacheBytes`, `keySpillCacheBytes`), the key registry's
/// recent keys and Bloom filter. It holds in every mode: a re-run, a snapshot, a staged run or
/// a plan, which write shared rows record by record, as a first load. Above it, the budget
/// pays for:
///
/// - **the key caches**, four ninths of the shared part: the keys of referenced tables known to
///   exist (two generations per table) and the patches staged before they are applied in key
///   order;
/// - **the records in flight** between the decoding and the loading thread, an eighteenth. The
///   hand-off's bound is larger (a third, from 2 to 16 MiB): records of a few KiB never fill it,
///   and a record of several MiB adds what it weighs, as without a budget;
/// - **the store's page cache** (SQLite's `cache_size`), the rest — half: what keeps an index's
///   pages in memory when rows land all over it (customers upserted in random order). A server
///   store keeps its cache on the server: that share is then simply not used.
///
/// The default budget gives the key caches and the staged patches what they had before the
/// budget existed (98,304 keys a generation, 6 MiB) and the page cache 9 MiB (16 before: 1M
/// orders then peaked at 65.5 MiB, over the 64 a run may take). What a record weighs beyond the
/// allowance (one record of 60 MB) is outside any budget: the run needs it to read the record
/// at all (docs/operations.md, "Memory as a budget").
public struct MemoryBudget: Sendable, Hashable, CustomStringConvertible {
  /// The whole budget, in bytes.
  public var bytes: Int

  public static let mebibyte = 1 << 20
  /// What a run takes whatever its budget.
  public static let base = 46 * mebibyte
  /// The rows of shared tables (customers, senders) a loader remembers writing (`RowCache`),
  /// part of the base: 65,536 customers' rows, the bound before, took 10 MiB, and re-runs —
  /// which write them record by record — peaked 2 MiB over the least budget.
  public static let rowCacheBytes = 2 * mebibyte
  /// SQLite's page cache of a run's temporary schema — a snapshot's keys seen, a plan's copies
  /// of the tables, staged patches —, part of the base: written and probed in key order, they
  /// need few pages in memory.
  public static let temporaryCacheBytes = 512 << 10
  /// The page cache of the key registry's spill (a private SQLite database), part of the base.
  public static let keySpillCacheBytes = 256 << 10
  /// The smallest budget a run keeps to: the base and enough of each share for a key cache of
  /// 49,152 keys a generation and a 5 MiB page cache.
  public static let minimum = 56 * mebibyte
  public static let `default` = MemoryBudget(bytes: 64 * mebibyte)
  /// The largest budget, 1 TiB: written `1TiB`, `1024GiB` or `1048576`.
  public static let maximum = 1 << 40

  public init(bytes: Int) { self.bytes = bytes }

  /// A budget as written on the command line or in a spec: a whole number of MiB (`256`), or
  /// with a unit, `MiB`/`M`/`GiB`/`G`/`TiB`/`T` (`512MiB`, `2GiB`, `1TiB`). Nil when it is
  /// neither, or below `minimum`, or beyond `maximum` — the bound `rule` states.
  public init?(text: String) {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
    let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
    let scale: Int
    switch unit {
    case "", "m", "mib", "mb": scale = Self.mebibyte
    case "g", "gib", "gb": scale = 1024 * Self.mebibyte
    case "t", "tib", "tb": scale = 1024 * 1024 * Self.mebibyte
    default: return nil
    }
    guard !digits.isEmpty, digits.count <= 7, let count = Int(digits) else { return nil }
    let bytes = count * scale
    guard bytes >= Self.minimum, bytes <= Self.maximum else { return nil }
    self.bytes = bytes
  }

  /// What a budget must be, said of `subject` (`--memory-budget`, `'memoryBudget'`).
  public static func rule(_ subject: String) -> String {
    "\(subject) must be a size from 56 MiB to 1 TiB: a number of MiB, or with MiB, GiB or TiB (512MiB, 2GiB, 1TiB)"
  }

  /// What the shares are cut from: the budget above the base (18 MiB at the default).
  private var shared: Int { max(bytes, Self.minimum) - Self.base }
  /// The key caches' share: four ninths (8 MiB at the default).
  private var keyShare: Int { shared / 9 * 4 }

  /// The store's page cache: half the shared part (9 MiB at the default, 233 MiB in 512 MiB).
  public var pageCacheBytes: Int { shared / 2 }

  /// The bound on the bytes in flight between the decoding and the loading thread: a third of
  /// the shared part, from 2 to 16 MiB (6 MiB at the default). Records of a few KiB keep an
  /// eighteenth of the shared part in flight at most; one heavier than the bound travels alone.
  public var handOffBytes: Int { min(max(shared / 3, 2 * Self.mebibyte), 16 * Self.mebibyte) }

  /// Keys a key cache's generation holds: as many as two generations' hash tables hold in the
  /// key share, with 32 bytes an entry (short keys inline) and three quarters of the entries
  /// used — the most a `Set` of a power-of-two size holds before it doubles. 98,304 (2^17
  /// entries, 3 MiB a generation) in the default's 8 MiB; 1,572,864 in 512 MiB.
  public var keyCacheGeneration: Int {
    var entries = 1 << 12
    while (entries * 2) * 32 * 2 <= keyShare { entries *= 2 }
    return entries / 4 * 3
  }

  /// Bytes of patches staged before they are applied in key order (SQLite sorts them in about
  /// as much memory): three quarters of the key share (6 MiB at the default).
  public var patchStageBytes: Int { keyShare / 4 * 3 }

  /// `64 MiB`, `1.5 GiB`.
  public var description: String {
    if bytes >= 1024 * Self.mebibyte && bytes % (Self.mebibyte * 1024 / 10) == 0 {
      let gibibytes = Double(bytes) / Double(1024 * Self.mebibyte)
      return gibibytes == gibibytes.rounded() ? "\(Int(gibibytes)) GiB" : "\(gibibytes) GiB"
    }
    return "\(bytes / Self.mebibyte) MiB"
  }
}
