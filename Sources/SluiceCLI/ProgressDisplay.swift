@_spi(Internals) import SluiceCore
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
  /// The command's streams, kept: the engine calls `draw` from the thread that loads, which may
  /// not be the command's.
  private let io = CommandIO.current

  /// Whether to draw: the flags, else whether standard error is a terminal (never a captured
  /// one: a command run in process has no terminal).
  static func isWanted(flags: Set<String>) -> Bool {
    if flags.contains("no-progress") { return false }
    if flags.contains("progress") { return true }
    return !CommandIO.current.isCaptured && isatty(2) == 1
  }

  /// Draws `progress` over the previous line.
  func draw(_ progress: RunProgress) {
    let line = ProgressLine.render(progress, width: Self.terminalColumns())
    io.writeError(ProgressLine.draw(line))
    drawn.store(true, ordering: .relaxed)
  }

  /// Erases the line, if one was drawn, so the summary starts at the beginning of a clean line.
  func finish() {
    if drawn.exchange(false, ordering: .relaxed) { io.writeError(ProgressLine.erase) }
  }

  /// The terminal's width, when stderr is one that says.
  private static func terminalColumns() -> Int? {
    var size = winsize()
    guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }
}
