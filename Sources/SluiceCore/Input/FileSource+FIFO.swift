import Foundation
import Glibc
import Synchronization

/// Opening a FIFO input, which blocks until a process opens it for writing.
///
/// An output FIFO is opened with `O_NONBLOCK`, which fails at once while nobody reads it, and
/// retried until `busyTimeout` (`OutputFile.openStream`). A reader has no such error: with
/// `O_NONBLOCK` its open succeeds at once and its reads then say end-of-file until a writer
/// comes, which cannot be told from an empty input. So the blocking open runs on a thread of its
/// own, waited for at most `writerWait` seconds; when the time is up, Sluice opens the FIFO for
/// writing itself, which ends that open (a FIFO's writer opened with `O_NONBLOCK` succeeds once
/// a reader waits), and closes both: the input fails, naming the FIFO, rather than block a
/// nightly job forever.
extension FileSource {
  static func openFIFO(_ path: String, writerWait: Double) throws -> Int32 {
    let wait = OpenWait()
    let thread = Thread {
      var opened: Int32
      repeat { opened = open(path, O_RDONLY | O_CLOEXEC) } while opened < 0 && errno == EINTR
      wait.finish(opened >= 0 ? opened : -errno)
    }
    thread.start()
    if wait.done.wait(timeout: .now() + max(writerWait, 0)) == .success, let opened = wait.take() {
      guard opened >= 0 else {
        throw InputError(code: .unreadable, path: path, message: "cannot open: \(describe(errno: -opened))")
      }
      return opened
    }
    // The time is up: be the FIFO's writer for a moment, so the thread's open returns. ENXIO
    // means its open has not begun yet (no reader waits): try again for a little while.
    var releaser: Int32 = -1
    for _ in 0..<50 where releaser < 0 {
      if wait.done.wait(timeout: .now() + 0.02) == .success { break }
      releaser = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
      if releaser < 0 && errno != ENXIO { break }
    }
    if releaser >= 0 {
      _ = wait.done.wait(timeout: .now() + 1)
      close(releaser)
    }
    // A thread still blocked (the FIFO was replaced meanwhile) closes what it opens later.
    if let opened = wait.abandon(), opened >= 0 { close(opened) }
    let seconds = writerWait == writerWait.rounded() ? "\(Int(writerWait))" : "\(writerWait)"
    throw InputError(
      code: .unreadable, path: path, message: "no process opened this FIFO for writing within \(seconds) s")
  }
}

/// What the thread opening a FIFO hands back: its descriptor (or `-errno`) once its open
/// returns; the caller that gave up on it takes nothing, and the thread closes what it got.
private final class OpenWait: Sendable {
  let done = DispatchSemaphore(value: 0)
  private let state = Mutex<(result: Int32?, isAbandoned: Bool)>((nil, false))

  func finish(_ result: Int32) {
    let isAbandoned = state.withLock { state in
      state.result = result
      return state.isAbandoned
    }
    if isAbandoned && result >= 0 { close(result) }
    done.signal()
  }

  func take() -> Int32? { state.withLock { $0.result } }

  /// Gives up on the open: returns its result if it came, so the caller closes it; otherwise the
  /// thread will.
  func abandon() -> Int32? {
    state.withLock { state in
      state.isAbandoned = true
      return state.result
    }
  }
}
