/// The lines of an NDJSON input, one JSON value each; blank lines are skipped.
///
/// A newline ends the record, so inside a value it is an error. A bad line is recoverable: the
/// error carries the whole line for the quarantine file, and the next `next()` goes on at the
/// line after it.
final class NDJSONReader: RecordReader {
  let scanner: JSONScanner
  private var hasSkippedByteOrderMark = false

  init(scanner: JSONScanner) {
    self.scanner = scanner
  }

  func next() throws -> RawRecord? {
    if !hasSkippedByteOrderMark {
      try scanner.skipByteOrderMark()
      hasSkippedByteOrderMark = true
    }
    scanner.newlineEndsRecord = false
    try scanner.skipWhitespace()
    guard try scanner.peek() != nil else { return nil }
    scanner.newlineEndsRecord = true
    defer { scanner.newlineEndsRecord = false }
    let location = scanner.beginRecord()
    scanner.beginTape()
    defer { scanner.endTape() }
    do {
      try scanner.scanValue(depth: 0)
      let valueLength = scanner.capturedCount
      try scanner.skipWhitespace()
      if let c = try scanner.peek(), c != UInt8(ascii: "\n") {
        throw scanner.syntaxError(
          "unexpected \(scanner.describe(c)) after the record; NDJSON holds one value per line")
      }
      var bytes = scanner.finishCapture()
      bytes.removeLast(bytes.count - valueLength)
      guard bytes.count <= scanner.limits.maxRecordBytes else { throw scanner.recordTooLarge() }
      var record = RawRecord(location: location, bytes: bytes)
      record.tapeNodes = scanner.tape(ofRecordBytes: bytes.count)
      return record
    } catch var error as RecordReadError {
      // Keep the whole line for the quarantine file, then go on at the next line.
      error.rawRecord = try scanner.captureRestOfLine()
      error.isRecoverable = true
      throw error
    }
  }
}
