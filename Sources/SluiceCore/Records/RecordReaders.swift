/// The one place a format becomes a record reader.
@_spi(Internals) public enum RecordReaders {
  /// The reader of `format`'s records in `source`: a JSON array at a key path, NDJSON lines, or
  /// XML elements at an element path.
  public static func make(
    format: PipelineConfiguration.Format, recordPath: [String], source: any ByteSource
  ) -> any RecordReader {
    switch format {
    case .json: return JSONRecordReader(source: source, layout: .array(path: recordPath))
    case .ndjson: return JSONRecordReader(source: source, layout: .lines)
    case .xml: return XMLRecordReader(source: source, path: recordPath)
    }
  }
}
