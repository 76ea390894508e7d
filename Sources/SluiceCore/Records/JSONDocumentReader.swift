/// The whole input as one JSON value, one record: a settings file, a conformance test, a
/// quarantined record checked again.
final class JSONDocumentReader: RecordReader {
  let scanner: JSONScanner
  private var isDone = false

  init(scanner: JSONScanner) {
    self.scanner = scanner
  }

  func next() throws -> RawRecord? {
    guard !isDone else { return nil }
    isDone = true
    try scanner.skipByteOrderMark()
    try scanner.skipWhitespace()
    guard try scanner.peek() != nil else { throw scanner.syntaxError("the input is empty; expected a JSON value") }
    let record = try scanner.captureRecord()
    try scanner.expectEndOfInput()
    return record
  }
}
