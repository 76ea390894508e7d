/// A run's temporary store of spilled natural keys (`KeySpill`) failed — a full or unwritable
/// temporary directory: the run cannot tell repeated keys apart, so it fails (exit 74). The
/// registry (`KeyRegistry`) throws it as `KeyRegistryError`.
package struct KeySpillError: Error, Sendable, CustomStringConvertible {
  package var message: String

  package init(message: String) { self.message = message }

  package var description: String {
    "the run's registry of natural keys (its temporary store of spilled keys) failed: \(message)"
  }
}
