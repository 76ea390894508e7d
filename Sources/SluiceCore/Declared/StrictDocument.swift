/// A JSON document read strictly, as a pipeline spec (`PipelineSpec`) and a dataset file
/// (`DatasetFile`) are: by Sluice's own decoder, so its errors carry the field paths and lines a
/// data error would; an unknown key is an error, never ignored; and every failure is a
/// `SpecError` about the file. The one strict decoding of both: only how a failure names its
/// file (`failure`) and how an unknown key is told (`unknownKey`) differ.
enum StrictDocument {
  static func decode<Document: Decodable>(
    _ type: Document.Type, from bytes: [UInt8], failure: (String) -> SpecError,
    unknownKey: (_ unknown: DecodeDiagnostics.Finding, _ record: RawRecord) -> String
  ) throws(SpecError) -> Document {
    do {
      let reader = JSONRecordReader(source: MemoryByteSource(bytes), layout: .document)
      guard let record = try reader.next() else { throw failure("empty file") }
      var diagnostics = DecodeDiagnostics()
      let document = try SluiceDecoder().decode(Document.self, from: record, diagnostics: &diagnostics)
      if let unknown = diagnostics.unknownFields.first { throw failure(unknownKey(unknown, record)) }
      return document
    } catch let error as SpecError {
      throw error
    } catch let error as RecordReadError {
      throw failure("not valid JSON: \(error)")
    } catch let error as RecordDecodingError {
      let place = error.path.isEmpty ? "" : "'\(error.path)': "
      throw failure(place + (error.code == .missingField ? "missing required key" : error.message))
    } catch {
      throw failure("\(error)")
    }
  }
}
