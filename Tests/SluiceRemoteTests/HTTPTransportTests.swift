import Foundation
@_spi(Internals) import SluiceCore
import SluiceRemote
import Testing

@Suite(
  "HTTPS inputs from nginx: streamed, verified, redirected",
  .enabled(if: TestServers.isAvailable, TestServers.skipReason))
struct HTTPTransportTests {
  let transport = CurlRemoteInputs()

  /// Writes `bytes` under the served root and returns its URL path (`/folder/name`).
  func serve(_ bytes: [UInt8], as name: String = "dump.bin") throws -> String {
    let folder = try TestServers.folder()
    try Data(bytes).write(to: URL(fileURLWithPath: folder.path + "/" + name))
    return "/" + folder.name + "/" + name
  }

  @Test func streamsTheObjectsBytesWithItsETagAndSize() throws {
    let bytes = TestServers.bytes(3 << 20)
    let path = try serve(bytes)
    let stream = try transport.open((TestServers.httpsURL ?? "") + path, options: TestServers.options())
    #expect(try readAll(stream.source, chunk: 7_919) == bytes)
    #expect(stream.object.size == Int64(bytes.count))
    #expect(stream.object.etag?.hasPrefix("\"") == true)
    #expect(stream.object.lastModified != nil)
  }

  @Test func aServerTheCABundleDoesNotVouchForFailsTLSWithoutRetrying() throws {
    let path = try serve([1, 2, 3])
    var options = TestServers.options(retries: 5)
    options.caBundle = nil
    let error = #expect(throws: InputError.self) {
      _ = try transport.open((TestServers.httpsURL ?? "") + path + "?X-Amz-Signature=SECRET", options: options)
    }
    #expect(error?.code == .unreachable)
    #expect(error?.path == (TestServers.httpsURL ?? "") + path)
    #expect(error?.message.hasPrefix("TLS failed: ") == true)
    #expect(error?.description.contains("SECRET") == false)
  }

  @Test func aRedirectIsFollowed() throws {
    let bytes = TestServers.bytes(10_000)
    let path = try serve(bytes)
    let stream = try transport.open((TestServers.httpsURL ?? "") + "/redirect" + path, options: TestServers.options())
    #expect(try readAll(stream.source) == bytes)
  }

  @Test func gzipContentEncodingIsNotDecodedTheBytesAreTheObjects() throws {
    let text = Array(String(repeating: "{\"id\": 1, \"name\": \"compressible\"}\n", count: 2_000).utf8)
    let path = try serve(text, as: "dump.ndjson")
    let stream = try transport.open((TestServers.httpsURL ?? "") + "/gzip" + path, options: TestServers.options())
    #expect(try readAll(stream.source) == text)
  }

  @Test func aMissingObjectIsNotFoundNamingTheURLWithoutItsQuery() throws {
    let base = TestServers.httpsURL ?? ""
    let error = #expect(throws: InputError.self) {
      _ = try transport.open(base + "/no/such/dump.json?token=SECRET", options: TestServers.options())
    }
    #expect(error?.code == .notFound)
    #expect(error?.description == "\(base)/no/such/dump.json: no such object (HTTP 404)")
  }

  @Test func aForbiddenObjectIsDenied() throws {
    let base = TestServers.httpsURL ?? ""
    let error = #expect(throws: InputError.self) {
      _ = try transport.open(base + "/private/dump.json", options: TestServers.options())
    }
    #expect(error?.code == .denied)
    #expect(
      error?.description == "\(base)/private/dump.json: access denied (HTTP 403): the server refused to serve this URL")
  }

  @Test func headDescribesTheObjectWithoutItsBody() throws {
    let bytes = TestServers.bytes(4_096)
    let path = try serve(bytes)
    let object = try transport.head((TestServers.httpsURL ?? "") + path, options: TestServers.options())
    #expect(object.size == 4_096)
    #expect(object.etag != nil)
  }

  @Test func anInputOverHTTPSIsDetectedAsGzipAndDigestedLikeAFile() throws {
    let folder = try TestServers.folder()
    let file = folder.path + "/orders.ndjson.gz"
    try Data(gzipMember("{\"id\":1}\n")).write(to: URL(fileURLWithPath: file))
    let input = try Input(
      path: (TestServers.httpsURL ?? "") + "/" + folder.name + "/orders.ndjson.gz?sig=SECRET", digesting: true,
      remote: RemoteAccess(transports: [transport], options: TestServers.options()))
    #expect(input.isGzip)
    #expect(input.path == (TestServers.httpsURL ?? "") + "/" + folder.name + "/orders.ndjson.gz")
    #expect(try readAll(input) == Array("{\"id\":1}\n".utf8))
    let digest = try input.finishDigest()
    #expect(digest?.sha256 == (try InputDigest.of(file: file)).sha256)
    #expect(input.remoteObject?.etag != nil)
  }
}

/// A gzip member of `text`, made by /bin/gzip.
func gzipMember(_ text: String) throws -> [UInt8] {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/gzip")
  process.arguments = ["-c", "-n"]
  let input = Pipe()
  let output = Pipe()
  process.standardInput = input
  process.standardOutput = output
  try process.run()
  input.fileHandleForWriting.write(Data(text.utf8))
  try input.fileHandleForWriting.close()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return Array(data)
}
