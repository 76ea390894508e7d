import Foundation

/// The process's peak resident set size, read from `/proc/self/status` (Linux's `VmHWM`).
package enum ProcessMemory {
  public static func peakResidentBytes() -> Int64? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return nil
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 2, let kilobytes = Int64(fields[1]) else { return nil }
      return kilobytes * 1024
    }
    return nil
  }
}
