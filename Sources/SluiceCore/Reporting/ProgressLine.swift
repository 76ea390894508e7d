/// The one-line progress display of a run on a terminal:
///
///     45% 120.3/267.0 MiB · 1,234,567 read · 1,234,000 loaded · 41,152 rec/s · 12 rejected · 0:30 · ETA 0:37
///
/// Counts and sizes only — never a value of a record. Drawn over itself with a carriage return
/// and erased before the summary (`draw`, `erase`).
package enum ProgressLine {
  /// The line for `progress`, cut to fit `width` columns (one less, so the terminal never wraps).
  public static func render(_ progress: RunProgress, width: Int? = nil) -> String {
    var parts: [String] = []
    if progress.inputCount > 1 { parts.append("input \(progress.input)/\(progress.inputCount)") }
    let read = mebibytes(progress.bytesRead)
    if let fraction = progress.fraction, let total = progress.totalBytes {
      parts.append("\(Int((fraction * 100).rounded(.down)))% \(read)/\(mebibytes(total)) MiB")
    } else {
      parts.append("\(read) MiB")
    }
    parts.append("\(grouped(progress.recordsRead)) read")
    parts.append("\(grouped(progress.recordsDone)) \(progress.mode == .validate ? "checked" : "loaded")")
    parts.append("\(grouped(Int(progress.recordsPerSecond.rounded()))) rec/s")
    parts.append("\(grouped(progress.recordsRejected)) rejected")
    parts.append(duration(progress.elapsedSeconds))
    if let eta = progress.etaSeconds { parts.append("ETA \(duration(eta))") }
    let line = parts.joined(separator: " · ")
    guard let width, width > 1, line.count >= width else { return line }
    return String(line.prefix(width - 2)) + "…"
  }

  /// Bytes that draw `line` over the previous one: back to the line's start, the line, then
  /// clear what a longer previous line left to its right.
  public static func draw(_ line: String) -> String { "\r" + line + "\u{1B}[K" }

  /// Bytes that erase the line, leaving the cursor at its start for the summary.
  public static let erase = "\r\u{1B}[K"

  /// `1234567` → `1,234,567`.
  static func grouped(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var result = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return number < 0 ? "-" + result : result
  }

  /// Bytes as MiB with one decimal.
  static func mebibytes(_ bytes: Int64) -> String {
    let tenths = (Double(bytes) / 104_857.6).rounded()
    return "\(Int(tenths) / 10).\(Int(tenths) % 10)"
  }

  /// `75` → `1:15`; `3725` → `1:02:05`.
  static func duration(_ seconds: Double) -> String {
    let total = Int(max(0, seconds).rounded())
    let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return hours > 0 ? "\(hours):\(two(minutes)):\(two(rest))" : "\(minutes):\(two(rest))"
  }
}
