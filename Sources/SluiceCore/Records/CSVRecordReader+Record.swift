// The CSV reader's rows once scanned: each field's text checked and converted to UTF-8, then the
// row keyed by the header as a tape. Kept apart from the scanner in CSVRecordReader.swift.

extension CSVRecordReader {
  /// Each field's bytes must be UTF-8, or converted to it from the dialect's encoding: anything
  /// else would reach the database as other text.
  func checkEncoding(_ header: CSVHeader) throws {
    if let error = transcode() {
      let field = fields[error.column]
      var issue = RecordReadError(
        code: .syntax, message: "a byte \(error.name) does not define, at byte \(error.index) of the field",
        location: .init(
          ordinal: recordCount, byteOffset: rowStart.byteOffset + Int64(field.offset),
          line: rowStart.line + field.lines,
          column: error.column + 1),
        isRecoverable: true)
      issue.path = header.names[error.column]
      throw issue
    }
    for column in 0..<fields.count {
      let field = fields[column]
      guard let bad = CSVRecordReader.firstInvalidUTF8(values.base + field.start, count: field.end - field.start)
      else { continue }
      var error = RecordReadError(
        code: .syntax,
        message: utf16 == nil
          ? "invalid UTF-8 at byte \(bad) of the field (a file in another encoding needs dialect.encoding or "
            + "--encoding; sluice inspect sniffs it)"
          : "malformed UTF-16 (an unpaired surrogate, or a last byte without its pair) at character "
            + "\(CSVUTF16Source.characters(values.base + field.start, before: bad) + 1) of the field",
        location: .init(
          ordinal: recordCount, byteOffset: rowStart.byteOffset + Int64(field.offset),
          line: rowStart.line + field.lines,
          column: column + 1),
        isRecoverable: true)
      error.path = header.names[column]
      throw error
    }
  }

  /// Converts the row's fields from the dialect's encoding to UTF-8, in place (a no-op for
  /// UTF-8); the first byte the encoding does not define stops it.
  func transcode() -> (column: Int, index: Int, name: String)? {
    guard singleByte != nil || multiByte != nil else { return nil }
    var converted = GrowableBuffer<UInt8>(capacity: values.count * 2)
    for column in 0..<fields.count {
      let field = fields[column]
      let text = UnsafeBufferPointer(start: values.base + field.start, count: field.end - field.start)
      let bad = singleByte?.utf8(text, into: &scratch) ?? multiByte?.utf8(text, into: &scratch)
      if let bad {
        converted.deallocate()
        return (column, bad, singleByte?.name ?? multiByte?.name ?? "")
      }
      let start = converted.count
      scratch.withUnsafeBufferPointer { bytes in
        if let base = bytes.baseAddress { converted.append(base, count: bytes.count) }
      }
      fields[column].start = start
      fields[column].end = converted.count
    }
    values.deallocate()
    values = converted
    return nil
  }

  /// The row as a tape: an object of the header's names (nested where they have dots).
  func tape(_ header: CSVHeader) throws -> RecordTape {
    builder.reset()
    objects.removeAll(keepingCapacity: true)
    let root = builder.openObject(offset: 0, lines: 0)
    for step in header.steps {
      switch step {
      case .open(let name, let column):
        let field = fields[column]
        name.withUnsafeBufferPointer { name in
          if let base = name.baseAddress {
            builder.key(escaping: base, count: name.count, offset: field.offset, lines: field.lines)
          }
        }
        objects.append(builder.openObject(offset: field.offset, lines: field.lines))
      case .field(let name, let column):
        let field = fields[column]
        name.withUnsafeBufferPointer { name in
          if let base = name.baseAddress {
            builder.key(escaping: base, count: name.count, offset: field.offset, lines: field.lines)
          }
        }
        if field.start == field.end && !field.isQuoted && dialect.emptyIsNull {
          builder.null(offset: field.offset, lines: field.lines)
        } else {
          builder.string(
            values.base + field.start, count: field.end - field.start, offset: field.offset, lines: field.lines)
        }
        guard builder.byteCount <= limits.maxRecordBytes else {
          throw RecordReadError(
            code: .recordTooLarge, message: "row larger than \(limits.maxRecordBytes) bytes once keyed by the header",
            location: rowStart, isRecoverable: true)
        }
      case .close:
        if let object = objects.popLast() { builder.closeObject(object) }
      }
    }
    builder.closeObject(root)
    return builder.finish(origin: .csv)
  }

  /// The index of the first byte that does not belong to valid UTF-8 (RFC 3629: no overlong
  /// forms, no surrogates, nothing past U+10FFFF), or nil.
  static func firstInvalidUTF8(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int? {
    var i = 0
    while i < count {
      let lead = bytes[i]
      if lead < 0x80 {
        i += 1
        continue
      }
      let length: Int
      var low: UInt8 = 0x80
      var high: UInt8 = 0xBF
      switch lead {
      case 0xC2...0xDF: length = 2
      case 0xE0: (length, low) = (3, 0xA0)
      case 0xE1...0xEC, 0xEE...0xEF: length = 3
      case 0xED: (length, high) = (3, 0x9F)
      case 0xF0: (length, low) = (4, 0x90)
      case 0xF1...0xF3: length = 4
      case 0xF4: (length, high) = (4, 0x8F)
      default: return i
      }
      guard i + length <= count, (low...high).contains(bytes[i + 1]) else { return i }
      for k in 2..<length where !(0x80...0xBF).contains(bytes[i + k]) { return i }
      i += length
    }
    return nil
  }
}
