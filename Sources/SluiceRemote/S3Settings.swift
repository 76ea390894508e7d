@_spi(Internals) import SluiceCore

/// An access key, as SigV4 signs with it. Never shown: no message, report or ledger row holds it.
struct S3Credentials: Sendable {
  var accessKeyID: String
  var secretAccessKey: String
  var sessionToken: String?
}

/// Where S3 requests go and how they are signed: the spec's `storage` and `--` options first,
/// then the environment (`AWS_*`), then the profile's files (`~/.aws/credentials`,
/// `~/.aws/config`), then AWS's defaults; no credentials anywhere means anonymous requests, for
/// public buckets.
struct S3Settings {
  /// An S3-compatible server; nil: AWS.
  var endpoint: String?
  var region: String
  var pathStyle: Bool
  var credentials: S3Credentials?

  init(options: RemoteOptions, name: String) throws {
    let environment = options.environment
    func nonEmpty(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
    let home = nonEmpty("HOME")
    let explicitProfile = nonEmpty("AWS_PROFILE")
    let profile = explicitProfile ?? "default"
    let credentialsFile = AWSConfigFile.read(
      nonEmpty("AWS_SHARED_CREDENTIALS_FILE") ?? home.map { $0 + "/.aws/credentials" })
    let configFile = AWSConfigFile.read(nonEmpty("AWS_CONFIG_FILE") ?? home.map { $0 + "/.aws/config" })
    // ~/.aws/credentials names a profile `[NAME]`; ~/.aws/config `[profile NAME]`, save `[default]`.
    let fromCredentials = credentialsFile[profile] ?? [:]
    let fromConfig = configFile[profile == "default" ? "default" : "profile \(profile)"] ?? [:]
    if explicitProfile != nil && credentialsFile[profile] == nil
      && configFile[profile == "default" ? "default" : "profile \(profile)"] == nil
    {
      throw InputError(
        code: .unreadable, path: name,
        message: "AWS_PROFILE names the profile '\(profile)', which neither ~/.aws/credentials nor ~/.aws/config holds")
    }
    func setting(_ key: String) -> String? { fromCredentials[key] ?? fromConfig[key] }

    endpoint =
      options.endpoint ?? nonEmpty("AWS_ENDPOINT_URL_S3") ?? nonEmpty("AWS_ENDPOINT_URL") ?? setting("endpoint_url")
    while endpoint?.hasSuffix("/") == true { endpoint?.removeLast() }
    region =
      options.region ?? nonEmpty("AWS_REGION") ?? nonEmpty("AWS_DEFAULT_REGION") ?? setting("region") ?? "us-east-1"
    // An S3-compatible server (MinIO, Ceph, moto) is usually reached by path; AWS by host.
    pathStyle = options.pathStyle ?? (endpoint != nil)
    if let key = nonEmpty("AWS_ACCESS_KEY_ID"), let secret = nonEmpty("AWS_SECRET_ACCESS_KEY") {
      credentials = S3Credentials(
        accessKeyID: key, secretAccessKey: secret, sessionToken: nonEmpty("AWS_SESSION_TOKEN"))
    } else if let key = setting("aws_access_key_id"), let secret = setting("aws_secret_access_key") {
      credentials = S3Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: setting("aws_session_token"))
    } else {
      credentials = nil
    }
  }

  /// The request for `key` in `bucket` (empty: the bucket itself, for a listing) with `query`'s
  /// parameters, sorted by name as SigV4's canonical query wants them (libcurl 7.88 signs the
  /// query as it is written).
  func request(bucket: String, key: String, query: [(String, String)], name: String) -> RemoteRequest {
    let path = "/" + Self.encoded(key, keepingSlashes: true)
    var url: String
    if let endpoint {
      if pathStyle {
        url = endpoint + "/" + bucket + path
      } else {
        let schemeEnd = endpoint.range(of: "://")?.upperBound ?? endpoint.startIndex
        url = String(endpoint[..<schemeEnd]) + bucket + "." + endpoint[schemeEnd...] + path
      }
    } else {
      url =
        pathStyle
        ? "https://s3.\(region).amazonaws.com/\(bucket)\(path)" : "https://\(bucket).s3.\(region).amazonaws.com\(path)"
    }
    if !query.isEmpty {
      url +=
        "?"
        + query.sorted { $0.0 < $1.0 }.map {
          "\(Self.encoded($0.0, keepingSlashes: false))=\(Self.encoded($0.1, keepingSlashes: false))"
        }
        .joined(separator: "&")
    }
    return RemoteRequest(url: url, name: name, signing: credentials, region: region)
  }

  /// `text` percent-encoded as SigV4 wants: every byte but `A–Z a–z 0–9 - . _ ~` (and `/` in a
  /// key's path), uppercase hex.
  static func encoded(_ text: String, keepingSlashes: Bool) -> String {
    var result = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        result.unicodeScalars.append(Unicode.Scalar(byte))
      case UInt8(ascii: "/") where keepingSlashes:
        result.append("/")
      default:
        let hex = Array("0123456789ABCDEF")
        result.append("%")
        result.append(hex[Int(byte >> 4)])
        result.append(hex[Int(byte & 0xF)])
      }
    }
    return result
  }
}
