/// A command line that cannot be run: exit 64 with the message and a pointer to the
/// subcommand's `--help`.
struct UsageError: Error, CustomStringConvertible {
  var message: String
  init(_ message: String) { self.message = message }
  var description: String { message }
}
