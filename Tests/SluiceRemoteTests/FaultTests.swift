import Foundation
@_spi(Internals) import SluiceCore
import SluiceRemote
import Testing

@Suite("Faults: retried, resumed by range, refused", .enabled(if: TestServers.isAvailable, TestServers.skipReason))
struct FaultTests {
  let transport = CurlRemoteInputs()
  let bytes = TestServers.bytes(2 << 20)

  /// Serves `bytes` through the fault server under a fresh id with `faults`; returns the URL and id.
  func serve(_ faults: String) throws -> (url: String, id: String) {
    let folder = try TestServers.folder()
    try Data(bytes).write(to: URL(fileURLWithPath: folder.path + "/dump.bin"))
    let id = "t-" + UUID().uuidString.lowercased()
    return ((TestServers.faultURL ?? "") + "/\(id)/\(faults)/\(folder.name)/dump.bin", id)
  }

  func gets(_ id: String) throws -> [[String: Any]] {
    try TestServers.stats(id).filter { $0["method"] as? String == "GET" }
  }

  @Test(arguments: ["truncate", "reset"])
  func aBreakMidBodyContinuesFromTheByteReachedGuardedByTheETag(fault: String) throws {
    let (url, id) = try serve("\(fault):1000000")
    let stream = try transport.open(url, options: TestServers.options())
    #expect(try readAll(stream.source) == bytes)
    let requests = try gets(id)
    #expect(requests.count == 2)
    // A truncation delivers its 1,000,000 bytes; a reset may discard what the kernel had not
    // handed over yet, so the range starts where the client really was.
    let range = requests.last?["range"] as? String ?? ""
    let from = Int(range.dropFirst("bytes=".count).dropLast()) ?? 0
    #expect(range == "bytes=\(from)-")
    #expect(fault == "truncate" ? from == 1_000_000 : (1...1_000_000).contains(from))
    #expect(requests.last?["ifMatch"] as? String == stream.object.etag)
    #expect(requests.last?["status"] as? Int == 206)
  }

  @Test func aStallLongerThanTheTimeoutIsABreakResumedByRange() throws {
    let (url, id) = try serve("stall:500000:30")
    var options = TestServers.options()
    options.stallTimeoutSeconds = 1
    let stream = try transport.open(url, options: options)
    #expect(try readAll(stream.source) == bytes)
    #expect(try gets(id).last?["range"] as? String == "bytes=500000-")
  }

  @Test(arguments: [503, 429, 500])
  func aRetryableStatusIsRetriedHonouringRetryAfter(status: Int) throws {
    let (url, id) = try serve("status:\(status):0:2")
    let stream = try transport.open(url, options: TestServers.options(retries: 2))
    #expect(try readAll(stream.source) == bytes)
    #expect(try gets(id).map { $0["status"] as? Int } == [status, status, 200])
  }

  @Test func retriesSpentEndTheInputAsUnreachableSayingHowManyTries() throws {
    let (url, _) = try serve("status:503:0:10")
    let error = #expect(throws: InputError.self) {
      _ = try transport.open(url + "?X-Amz-Credential=SECRET", options: TestServers.options(retries: 2))
    }
    #expect(error?.code == .unreachable)
    #expect(error?.message == "HTTP 503; gave up after 3 tries (--retries 2)")
    #expect(error?.path == url)
  }

  @Test func anObjectReplacedBetweenTwoRangesIsRefused() throws {
    let (url, _) = try serve("truncate:1000000,change")
    let stream = try transport.open(url, options: TestServers.options())
    let error = #expect(throws: InputError.self) { _ = try readAll(stream.source) }
    #expect(error?.code == .changed)
    #expect(
      error?.message
        == "the object was replaced while it was read (HTTP 412 to the resumed range guarded by its ETag); its bytes would mix two objects, so it is refused"
    )
  }

  @Test func aRefusedConnectionIsRetriedThenUnreachable() throws {
    // A port nothing listens on: bind one, note it, close it.
    let error = #expect(throws: InputError.self) {
      _ = try transport.open("http://127.0.0.1:9/dump.json", options: TestServers.options(retries: 1))
    }
    #expect(error?.code == .unreachable)
    #expect(error?.message.hasSuffix("; gave up after 2 tries (--retries 1)") == true)
  }
}
