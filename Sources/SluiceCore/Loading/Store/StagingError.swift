/// Why staging or publishing failed: what a `StagingDriver` throws, declared beside it so that
/// the driver interface names nothing of the run strategies above it.
package struct StagingError: Error, Sendable, CustomStringConvertible {
  package enum Kind: Sendable {
    /// The target changed while the run was staged: publishing would lose what was written.
    case targetChanged
    /// Staging cannot be done for this database as it is (WAL mode).
    case unsupported
    /// The side database or the target could not be read or written.
    case io
  }
  package var kind: Kind
  package var message: String

  package init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  package var description: String { message }
}
