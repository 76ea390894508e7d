/// Where a run's key registries move their keys (`KeyRegistry`, in the loading layer): a
/// configuration's business, so it lives with the configuration.
extension PipelineConfiguration {
  /// Where a run's key registries move their keys: the database driver's temporary store, when
  /// it offers one (nil: they stay in memory).
  var keySpill: KeyRegistry.MakeSpill? {
    guard let driver = database.driver as? any KeySpillingDriver else { return nil }
    return { () throws(KeyRegistryError) -> any KeySpill in try driver.makeKeySpill() }
  }
}
