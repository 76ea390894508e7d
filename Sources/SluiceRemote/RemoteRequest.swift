internal import CCurl
@_spi(Internals) import SluiceCore

/// What one remote input is asked for: the URL sent (an S3 key made an endpoint's URL, a
/// presigned query kept), the name every message shows, and the signing, if any.
struct RemoteRequest {
  /// The URL curl requests; may hold a presigned query, so it is never shown.
  var url: String
  /// The input's URL as shown and recorded: `RemoteURL.redacted`.
  var name: String
  var headers: [String] = []
  /// S3's SigV4, signed by libcurl.
  var signing: S3Credentials?
  var region = "us-east-1"

  /// Sets the request's signing on a curl handle.
  func configure(_ easy: UnsafeMutableRawPointer) -> CURLcode {
    guard let signing else { return CURLE_OK }
    let codes = [
      sluice_curl_setopt_string(easy, CURLOPT_AWS_SIGV4, "aws:amz:\(region):s3"),
      sluice_curl_setopt_string(easy, CURLOPT_USERNAME, signing.accessKeyID),
      sluice_curl_setopt_string(easy, CURLOPT_PASSWORD, signing.secretAccessKey),
    ]
    return codes.first { $0 != CURLE_OK } ?? CURLE_OK
  }

  /// The headers sent: the request's own, and S3's unsigned-payload declaration (which makes
  /// libcurl 7.88's SigV4 sign for S3) and session token when signing.
  var allHeaders: [String] {
    var all = headers
    if let signing {
      all.append("x-amz-content-sha256: UNSIGNED-PAYLOAD")
      if let token = signing.sessionToken { all.append("x-amz-security-token: \(token)") }
    }
    // No `Accept-Encoding`: the bytes are the object's, decompressed by the engine.
    return all
  }

  /// The request for the object at `url` (`http(s)://…` or `s3://bucket/key`).
  static func object(_ url: String, options: RemoteOptions) throws -> RemoteRequest {
    let name = RemoteURL.redacted(url)
    guard RemoteURL.scheme(of: url) == "s3" else { return RemoteRequest(url: url, name: name) }
    let location = try S3Location(url)
    let settings = try S3Settings(options: options, name: name)
    return settings.request(bucket: location.bucket, key: location.key, query: [], name: name)
  }
}

/// `s3://bucket/key`, taken apart.
struct S3Location {
  var bucket: String
  var key: String

  init(_ url: String) throws {
    let rest = RemoteURL.redacted(url).dropFirst("s3://".count)
    let slash = rest.firstIndex(of: "/") ?? rest.endIndex
    bucket = String(rest[..<slash])
    key = slash == rest.endIndex ? "" : String(rest[rest.index(after: slash)...])
    guard !bucket.isEmpty else {
      throw InputError(
        code: .unreadable, path: RemoteURL.redacted(url), message: "an S3 URL names a bucket: s3://BUCKET/KEY")
    }
  }
}
