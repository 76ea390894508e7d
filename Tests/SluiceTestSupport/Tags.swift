import Testing

extension Tag {
  /// A suite that takes seconds, not milliseconds: it builds a package, kills processes, feeds
  /// the binary tens of megabytes, or walks a whole corpus. `docs/contributing.md` gives the
  /// inner loop that skips them.
  @Tag public static var slow: Self
}
