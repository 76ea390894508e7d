@_spi(Internals) import SluiceCore
import Testing

@Suite("Remote URLs: told from paths, shown without secrets")
struct RemoteURLTests {
  @Test(arguments: [
    ("https://example.com/dump.json.gz?X-Amz-Signature=abc&X-Amz-Credential=AKIA", "https://example.com/dump.json.gz"),
    ("https://user:secret@example.com/a/b.xml#part", "https://example.com/a/b.xml"),
    ("s3://bucket/drops/a.ndjson.gz", "s3://bucket/drops/a.ndjson.gz"),
    ("HTTP://u@host:8080/x?y", "HTTP://host:8080/x"),
    ("/data/orders.json", "/data/orders.json"),
    ("-", "-"),
  ])
  func redactionDropsQueryFragmentAndUserinfo(url: String, shown: String) {
    #expect(RemoteURL.redacted(url) == shown)
  }

  @Test func aPathWithColonsIsNoURL() {
    #expect(!RemoteURL.isURL("/data/a://b.json"))
    #expect(!RemoteURL.isURL("dumps/2026-12-07T00:00.json"))
    #expect(RemoteURL.scheme(of: "S3://b/k") == "s3")
  }

  @Test func aProgramWithoutATransportRefusesAURLNamingItsScheme() throws {
    let error = #expect(throws: InputError.self) {
      _ = try Input(path: "https://example.com/d.json?sig=SECRET")
    }
    #expect(error?.code == .unreadable)
    #expect(error?.path == "https://example.com/d.json")
    #expect(error?.message == "this program reads no https:// inputs (it was built without a transport for them)")
  }
}

@Suite("Remote objects: the same object, as its server tells")
struct RemoteObjectTests {
  @Test func anObjectIsTheSameByETagAndSizeOrWithoutETagsByItsTime() {
    let object = RemoteObject(
      url: "s3://b/k", etag: "\"abc-2\"", size: 10, lastModified: "Mon, 07 Dec 2026 20:00:00 GMT")
    #expect(object.isSameObject(as: RemoteObject(url: "s3://b/k", etag: "\"abc-2\"", size: 10)))
    #expect(!object.isSameObject(as: RemoteObject(url: "s3://b/k", etag: "\"abd-2\"", size: 10)))
    #expect(!object.isSameObject(as: RemoteObject(url: "s3://b/k", etag: "\"abc-2\"", size: 11)))
    let untagged = RemoteObject(url: "https://h/a", size: 10, lastModified: "Mon, 07 Dec 2026 20:00:00 GMT")
    #expect(untagged.isSameObject(as: RemoteObject(url: "https://h/a", size: 10, lastModified: untagged.lastModified)))
    #expect(!untagged.isSameObject(as: RemoteObject(url: "https://h/a", size: 10, lastModified: "Tue, 08 Dec 2026")))
    #expect(!RemoteObject(url: "https://h/a", size: 10).isSameObject(as: RemoteObject(url: "https://h/a", size: 10)))
  }
}
