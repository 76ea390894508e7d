/// The elements of a JSON array, one record each: the top-level array, or the array under a key
/// path of nested objects (`["data", "fruits"]` for `{"data": {"fruits": [...]}}`).
///
/// The first `next()` walks from the document's start to the array, skipping (and checking) the
/// members it passes; after the array's `]` the rest of the enclosing objects is checked, so a
/// document that is malformed after its records still fails.
final class JSONArrayReader: RecordReader {
  let path: [String]
  let scanner: JSONScanner

  private enum Phase { case start, inArray(first: Bool), done }
  private var phase = Phase.start
  /// Objects entered to reach the array; their remaining members are checked after it.
  private var enclosingObjects = 0

  init(scanner: JSONScanner, path: [String]) {
    self.scanner = scanner
    self.path = path
  }

  func next() throws -> RawRecord? {
    switch phase {
    case .done:
      return nil
    case .start:
      try scanner.skipByteOrderMark()
      try descend()
      phase = .inArray(first: true)
      return try next()
    case .inArray(let first):
      try scanner.skipWhitespace()
      guard let c = try scanner.peek() else {
        throw scanner.syntaxError("unexpected end of input inside the record array; expected ',' or ']'")
      }
      if c == UInt8(ascii: "]") {
        scanner.advance()
        try finishDocument()
        phase = .done
        return nil
      }
      if !first {
        guard c == UInt8(ascii: ",") else {
          throw scanner.syntaxError("expected ',' or ']' after a record, found \(scanner.describe(c))")
        }
        scanner.advance()
        try scanner.skipWhitespace()
        if try scanner.peek() == UInt8(ascii: "]") {
          throw scanner.syntaxError("trailing comma before ']'")
        }
      }
      phase = .inArray(first: false)
      return try scanner.captureRecord()
    }
  }

  /// Walks from the document's start to just after the '[' of the record array.
  private func descend() throws {
    var walked: [String] = []
    for component in path {
      try scanner.skipWhitespace()
      guard let c = try scanner.peek() else {
        throw scanner.syntaxError("unexpected end of input; expected an object holding '\(component)'")
      }
      guard c == UInt8(ascii: "{") else {
        let place = walked.isEmpty ? "at the top level" : "at '\(walked.joined(separator: "."))'"
        throw scanner.pathError(
          "record path '\(path.joined(separator: "."))': expected an object \(place), found \(scanner.describeValue(c))"
        )
      }
      scanner.advance()
      enclosingObjects += 1
      try scanner.skipWhitespace()
      var first = true
      var found = false
      while !found {
        guard let next = try scanner.peek() else {
          throw scanner.syntaxError("unexpected end of input inside an object")
        }
        if next == UInt8(ascii: "}") {
          throw scanner.pathError(
            "record path '\(path.joined(separator: "."))': no key '\(component)'"
              + (walked.isEmpty ? " at the top level" : " in '\(walked.joined(separator: "."))'"))
        }
        if !first {
          guard next == UInt8(ascii: ",") else {
            throw scanner.syntaxError("expected ',' or '}' in an object, found \(scanner.describe(next))")
          }
          scanner.advance()
          try scanner.skipWhitespace()
        }
        first = false
        let key = try scanner.readKey()
        try scanner.skipWhitespace()
        try scanner.expect(UInt8(ascii: ":"), "expected ':' after an object key")
        try scanner.skipWhitespace()
        if key == component {
          found = true
        } else {
          try scanner.scanValue(depth: 1)
          try scanner.skipWhitespace()
        }
      }
      walked.append(component)
    }
    try scanner.skipWhitespace()
    guard let c = try scanner.peek() else {
      throw scanner.syntaxError("unexpected end of input; expected '[' starting the record array")
    }
    guard c == UInt8(ascii: "[") else {
      if path.isEmpty {
        throw scanner.pathError(
          "expected an array of records at the top level, found \(scanner.describeValue(c))"
            + (c == UInt8(ascii: "{")
              ? "; set the record path to the key that holds the records" : ""))
      }
      throw scanner.pathError(
        "record path '\(path.joined(separator: "."))' holds \(scanner.describeValue(c)), not an array")
    }
    scanner.advance()
  }

  /// After the record array's ']': checks the rest of the enclosing objects and the end.
  private func finishDocument() throws {
    while enclosingObjects > 0 {
      try scanner.skipWhitespace()
      while true {
        guard let c = try scanner.peek() else {
          throw scanner.syntaxError("unexpected end of input inside an object")
        }
        if c == UInt8(ascii: "}") {
          scanner.advance()
          break
        }
        guard c == UInt8(ascii: ",") else {
          throw scanner.syntaxError("expected ',' or '}' in an object, found \(scanner.describe(c))")
        }
        scanner.advance()
        try scanner.skipWhitespace()
        _ = try scanner.readKey()
        try scanner.skipWhitespace()
        try scanner.expect(UInt8(ascii: ":"), "expected ':' after an object key")
        try scanner.skipWhitespace()
        try scanner.scanValue(depth: 1)
        try scanner.skipWhitespace()
      }
      enclosingObjects -= 1
    }
    try scanner.expectEndOfInput()
  }
}
