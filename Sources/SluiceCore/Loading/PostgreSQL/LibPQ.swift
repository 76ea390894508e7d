internal import CLibPQ

/// libpq as Sluice links it.
enum LibPQ {
  /// The linked libpq's version, as `PQlibVersion` gives it (150020 for 15.20).
  static var version: Int { Int(PQlibVersion()) }
}
