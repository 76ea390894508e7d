import Foundation
@_spi(Internals) import SluiceCore
import SluiceRemote
import Testing

@Suite("S3 inputs from moto: signed, listed, refused", .enabled(if: TestServers.isAvailable, TestServers.skipReason))
struct S3TransportTests {
  let transport = CurlRemoteInputs()

  /// Uploads `bytes` as `key` into `bucket`.
  func put(_ bytes: [UInt8], bucket: String, key: String) throws {
    let file = NSTemporaryDirectory() + "/sluice-upload-" + UUID().uuidString
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    try TestServers.s3("PUT", "/\(bucket)/\(key)", upload: file)
  }

  @Test func aSignedRequestReadsTheObject() throws {
    let bucket = try TestServers.bucket()
    let bytes = TestServers.bytes(1 << 20)
    try put(bytes, bucket: bucket, key: "drops/a b+c.ndjson.gz")
    let stream = try transport.open("s3://\(bucket)/drops/a b+c.ndjson.gz", options: TestServers.options())
    #expect(try readAll(stream.source) == bytes)
    #expect(stream.object.size == Int64(bytes.count))
    #expect(stream.object.url == "s3://\(bucket)/drops/a b+c.ndjson.gz")
  }

  @Test func aWrongSecretIsDeniedAndNeverShown() throws {
    let bucket = try TestServers.bucket()
    try put([1, 2, 3], bucket: bucket, key: "a.json")
    var options = TestServers.options()
    options.environment["AWS_SECRET_ACCESS_KEY"] = "wrongSECRETwrongSECRETwrongSECRET"
    let error = #expect(throws: InputError.self) { _ = try transport.open("s3://\(bucket)/a.json", options: options) }
    #expect(error?.code == .denied)
    #expect(
      error?.description
        == "s3://\(bucket)/a.json: access denied (HTTP 403 SignatureDoesNotMatch): the server refused these credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE) for this object"
    )
    #expect(error?.description.contains("wrongSECRET") == false)
    #expect(error?.description.contains(TestServers.accessKeyID ?? "-") == false)
  }

  @Test func anUnsignedRequestIsDeniedByAServerThatChecks() throws {
    let bucket = try TestServers.bucket()
    try put([1], bucket: bucket, key: "a.json")
    var options = TestServers.options()
    options.environment = [:]
    let error = #expect(throws: InputError.self) { _ = try transport.open("s3://\(bucket)/a.json", options: options) }
    #expect(error?.code == .denied)
  }

  @Test func aMissingKeyIsNotFound() throws {
    let bucket = try TestServers.bucket()
    let error = #expect(throws: InputError.self) {
      _ = try transport.open("s3://\(bucket)/nothing.json", options: TestServers.options())
    }
    #expect(error?.code == .notFound)
    #expect(error?.description == "s3://\(bucket)/nothing.json: no such object (HTTP 404 NoSuchKey)")
  }

  @Test func aPatternListsMatchingKeysAcrossContinuationPagesInKeyOrder() throws {
    let bucket = try TestServers.bucket()
    let keys = [
      "drops/2026-12-07/a.ndjson.gz", "drops/2026-12-07/b.ndjson.gz", "drops/2026-12-07/c.ndjson.gz",
      "drops/2026-12-07/d.ndjson.gz", "drops/2026-12-07/e.ndjson.gz", "drops/2026-12-07/notes.txt",
      "drops/2026-12-07/sub/f.ndjson.gz", "drops/2026-12-08/g.ndjson.gz",
    ]
    for key in keys.reversed() { try put(Array(key.utf8), bucket: bucket, key: key) }
    var options = TestServers.options()
    options.listPageSize = 2
    let flat = try transport.list("s3://\(bucket)/drops/2026-12-07/*.ndjson.gz", options: options)
    #expect(flat.map(\.url) == keys.prefix(5).map { "s3://\(bucket)/\($0)" })
    #expect(flat.allSatisfy { $0.etag != nil && $0.size != nil })
    #expect(flat.first?.size == Int64(keys[0].utf8.count))
    let deep = try transport.list("s3://\(bucket)/drops/**/*.ndjson.gz", options: options)
    #expect(deep.map(\.url) == keys.filter { $0.hasSuffix(".ndjson.gz") }.map { "s3://\(bucket)/\($0)" })
  }

  @Test func aPatternOverHTTPIsRefusedForHTTPHasNoListing() throws {
    let error = #expect(throws: InputError.self) {
      _ = try transport.list("https://example.com/drops/*.json", options: TestServers.options())
    }
    #expect(error?.code == .unreadable)
    #expect(
      error?.message == "a pattern needs a listing, which HTTP has not: name each URL, or read the objects from S3")
  }
}
