import Foundation
@_spi(Internals) import SluiceCore
import Testing

@testable import SluiceRemote

@Suite("S3 settings: keys, profiles, endpoints and patterns")
struct S3SettingsTests {
  @Test func theConfigFileParserReadsSectionsKeysAndSkipsCommentsAndNestedBlocks() {
    let sections = AWSConfigFile.parse(
      """
      # a comment
      [default]
      aws_access_key_id = AKIDEFAULT
      Region=eu-west-1
      ; another
      [profile nightly]
      endpoint_url = http://127.0.0.1:9000
      s3 =
        addressing_style = path
      """)
    #expect(sections["default"] == ["aws_access_key_id": "AKIDEFAULT", "region": "eu-west-1"])
    #expect(sections["profile nightly"] == ["endpoint_url": "http://127.0.0.1:9000", "s3": ""])
  }

  @Test func theEnvironmentsKeyComesBeforeTheProfilesAndNoneMeansAnonymous() throws {
    var options = RemoteOptions()
    options.environment = ["AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "s", "AWS_SESSION_TOKEN": "t"]
    let settings = try S3Settings(options: options, name: "s3://b/k")
    #expect(settings.credentials?.accessKeyID == "AKIAENV")
    #expect(settings.credentials?.sessionToken == "t")
    #expect(settings.region == "us-east-1")
    #expect(settings.endpoint == nil && !settings.pathStyle)
    options.environment = ["HOME": "/nonexistent"]
    #expect(try S3Settings(options: options, name: "s3://b/k").credentials == nil)
  }

  @Test func aProfileGivesKeysRegionAndEndpointFromTheTwoFiles() throws {
    let folder = NSTemporaryDirectory() + "/aws-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder + "/.aws", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try "[nightly]\naws_access_key_id = AKIAPROFILE\naws_secret_access_key = secret\n".write(
      toFile: folder + "/.aws/credentials", atomically: true, encoding: .utf8)
    try "[profile nightly]\nregion = eu-central-1\nendpoint_url = http://127.0.0.1:9000/\n".write(
      toFile: folder + "/.aws/config", atomically: true, encoding: .utf8)
    var options = RemoteOptions()
    options.environment = ["HOME": folder, "AWS_PROFILE": "nightly"]
    let settings = try S3Settings(options: options, name: "s3://b/k")
    #expect(settings.credentials?.accessKeyID == "AKIAPROFILE")
    #expect(settings.region == "eu-central-1")
    #expect(settings.endpoint == "http://127.0.0.1:9000")
    #expect(settings.pathStyle)
    let request = settings.request(bucket: "b", key: "drops/a b.json", query: [], name: "s3://b/drops/a b.json")
    #expect(request.url == "http://127.0.0.1:9000/b/drops/a%20b.json")
    options.environment["AWS_PROFILE"] = "absent"
    let error = #expect(throws: InputError.self) { _ = try S3Settings(options: options, name: "s3://b/k") }
    #expect(
      error?.message
        == "AWS_PROFILE names the profile 'absent', which neither ~/.aws/credentials nor ~/.aws/config holds")
  }

  @Test func awsIsAddressedByVirtualHostAndAListingsQueryIsSortedAndEncoded() throws {
    var options = RemoteOptions()
    options.region = "eu-west-1"
    let settings = try S3Settings(options: options, name: "s3://exports/x")
    let request = settings.request(
      bucket: "exports", key: "",
      query: [("prefix", "orders/2026 12/"), ("list-type", "2"), ("continuation-token", "a+b/=")],
      name: "s3://exports/x")
    #expect(
      request.url
        == "https://exports.s3.eu-west-1.amazonaws.com/?continuation-token=a%2Bb%2F%3D&list-type=2&prefix=orders%2F2026%2012%2F"
    )
  }

  @Test(arguments: [
    ("drops/*.json.gz", "drops/a.json.gz", true),
    ("drops/*.json.gz", "drops/sub/a.json.gz", false),
    ("drops/**/*.json.gz", "drops/sub/deeper/a.json.gz", true),
    ("drops/**/*.json.gz", "drops/a.json.gz", true),
    ("drops/?.json", "drops/ab.json", false),
    ("drops/?.json", "drops/a.json", true),
    ("**", "anything/at/all", true),
  ])
  func keyPatternsMatchAsFileGlobsDo(pattern: String, key: String, matches: Bool) {
    #expect(KeyPattern(pattern).matches(key) == matches)
  }

  @Test func aPatternsListingPrefixIsItsLiteralPart() {
    #expect(KeyPattern("orders/2026-12-07/*.json.gz").literalPrefix == "orders/2026-12-07/")
    #expect(KeyPattern("**/*.json").literalPrefix == "")
  }

  @Test func anS3ErrorBodyShowsOnlyItsCode() {
    let body = Array(
      "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature AKIA…</Message></Error>".utf8)
    #expect(ObjectStream.code(body) == "SignatureDoesNotMatch")
    #expect(ObjectStream.code(Array("<Code>a b</Code>".utf8)) == nil)
  }
}

@Suite("Resumed ranges: guarded by the object's identity")
struct ResumeGuardTests {
  @Test func aRangeIsGuardedByAStrongETagElseByItsTimeElseNotResumed() {
    #expect(
      ObjectStream.guardHeader(for: RemoteObject(url: "u", etag: "\"a-2\"", lastModified: "t")) == "If-Match: \"a-2\"")
    #expect(
      ObjectStream.guardHeader(
        for: RemoteObject(url: "u", etag: "W/\"a\"", lastModified: "Mon, 07 Dec 2026 20:00:00 GMT"))
        == "If-Unmodified-Since: Mon, 07 Dec 2026 20:00:00 GMT")
    #expect(ObjectStream.guardHeader(for: RemoteObject(url: "u", etag: "W/\"a\"")) == nil)
  }
}
