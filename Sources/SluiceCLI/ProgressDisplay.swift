import SluiceCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The progress line on standard error while a pipeline runs: redrawn in place at most ten
/// times a second (the engine's `progressInterval`), cut to the terminal's width, and erased
/// before the summary. Drawn only when stderr is a terminal, unless `--progress` or
/// `--no-progress` says otherwise: a log file or a pipe never gets a byte of it.
final class ProgressDisplay: Sendable {
  private let drawn = Atomic<Bool>(false)

  /// Whether to draw: the flags, else whether standard error is a terminal.
  static func isWanted(flags: Set<String>) -> Bool {
    if flags.contains("no-progress") { return false }
    if flags.contains("progress") { return true }
    return isatty(2) == 1
  }

  /// Draws `progress` over the previous line.
  func draw(_ progress: RunProgress) {
    let line = ProgressLine.render(progress, width: Self.terminalColumns())
    _ = StandardStreams.write(ProgressLine.draw(line), to: 2)
    drawn.store(true, ordering: .relaxed)
  }

  /// Erases the line, if one was drawn, so the summary starts at the beginning of a clean line.
  func finish() {
    if drawn.exchange(false, ordering: .relaxed) { _ = StandardStreams.write(ProgressLine.erase, to: 2) }
  }

  /// The terminal's width, when stderr is one that says.
  private static func terminalColumns() -> Int? {
    var size = winsize()
    guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }
}
