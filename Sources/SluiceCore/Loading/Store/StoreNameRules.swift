/// The table, index and column names every store of a program takes as they are, from what its
/// drivers declare (`StoreDriver.identifierLimit`, `reservedNamePrefixes`): a dataset file's
/// names are checked against them before anything is opened (`DatasetFileBuilder.checkName`),
/// so that a file one store would refuse or cut is refused for every store.
package struct StoreNameRules: Sendable {
  /// The shortest limit a driver declares, in bytes, with the driver's name; nil: none.
  package var limit: (bytes: Int, store: String)?
  /// The prefixes the stores keep for their own tables: Sluice's, then each driver's.
  package var reservedPrefixes: [String]

  /// The rules of `drivers`, in their order.
  package init(_ drivers: StoreDrivers) {
    limit = nil
    reservedPrefixes = ["sluice_"]
    for driver in drivers.drivers {
      if let bytes = driver.identifierLimit, bytes < limit?.bytes ?? .max { limit = (bytes, driver.name) }
      for prefix in driver.reservedNamePrefixes where !reservedPrefixes.contains(prefix) {
        reservedPrefixes.append(prefix)
      }
    }
  }

  /// Why a store would not take `name` as it is, as a sentence; nil when every store does.
  package func problem(with name: String) -> String? {
    if let limit, name.utf8.count > limit.bytes {
      return "'\(name)' is longer than \(limit.bytes) bytes, which \(limit.store) would cut"
    }
    let lowered = name.lowercased()
    guard reservedPrefixes.contains(where: { lowered.hasPrefix($0) }) else { return nil }
    let listed =
      reservedPrefixes.count == 1
      ? reservedPrefixes[0]
      : reservedPrefixes.dropLast().joined(separator: ", ") + " or " + (reservedPrefixes.last ?? "")
    return "names starting with \(listed) are the stores' own"
  }
}
