internal import CLibXML2
@_spi(Internals) import SluiceCore

/// `ListObjectsV2` over a bucket prefix, page after page (`continuation-token`), its XML read
/// with libxml2. Keys come in the order S3 lists them: UTF-8 binary order.
struct S3Listing {
  let settings: S3Settings
  let bucket: String
  let options: RemoteOptions
  let name: String
  /// Where the page requests' retries are counted.
  var counter: RetryCounter? = nil

  /// Every object under `prefix` whose key `keep` accepts, in key order.
  func objects(prefix: String, keep: (String) -> Bool) throws -> [RemoteObject] {
    var found: [RemoteObject] = []
    var token: String?
    repeat {
      var query = [("list-type", "2"), ("prefix", prefix)]
      if let token { query.append(("continuation-token", token)) }
      if let size = options.listPageSize { query.append(("max-keys", String(size))) }
      let request = settings.request(bucket: bucket, key: "", query: query, name: name)
      let page = try Self.page(try fetch(request))
      for entry in page.contents where keep(entry.key) {
        found.append(
          RemoteObject(
            url: "s3://\(bucket)/\(entry.key)", etag: entry.etag, size: entry.size, lastModified: entry.lastModified))
      }
      token = page.isTruncated ? page.nextToken : nil
    } while token != nil
    return found
  }

  /// One page's body, whole (a page of 1,000 keys is some 300 KiB; 64 MiB is refused).
  private func fetch(_ request: RemoteRequest) throws -> [UInt8] {
    var retry = RetrySchedule(options: options, counter: counter)
    while true {
      let (transfer, _) = try ObjectStream.start(request, options: options, retry: &retry, resumingAt: nil)
      var body: [UInt8] = []
      let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
      defer { chunk.deallocate() }
      do {
        while true {
          let n = try transfer.read(into: chunk)
          if n == 0 { return body }
          body += UnsafeRawBufferPointer(rebasing: chunk[0..<n])
          guard body.count < 64 << 20 else {
            throw InputError(code: .unreachable, path: name, message: "a listing page is larger than 64 MiB")
          }
        }
      } catch let failure as CurlTransfer.Failure {
        try retry.wait(after: "the listing broke: \(failure.message)", name: name)
      }
    }
  }

  struct Entry {
    var key: String
    var etag: String?
    var size: Int64?
    var lastModified: String?
  }

  struct Page {
    var contents: [Entry] = []
    var isTruncated = false
    var nextToken: String?
  }

  /// Reads a `ListBucketResult`.
  static func page(_ body: [UInt8]) throws -> Page {
    let document = body.withUnsafeBufferPointer { bytes in
      bytes.baseAddress.map { base in
        base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
          xmlReadMemory($0, Int32(bytes.count), nil, nil, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOBLANKS.rawValue))
        }
      } ?? nil
    }
    guard let document else {
      throw InputError(code: .unreachable, path: "", message: "the server's listing is not XML")
    }
    defer { xmlFreeDoc(document) }
    var page = Page()
    var node = xmlDocGetRootElement(document)?.pointee.children
    while let current = node {
      switch name(of: current) {
      case "Contents":
        var entry = Entry(key: "")
        var field = current.pointee.children
        while let item = field {
          let value = text(of: item)
          switch name(of: item) {
          case "Key": entry.key = value
          case "ETag": entry.etag = value
          case "Size": entry.size = Int64(value)
          case "LastModified": entry.lastModified = value
          default: break
          }
          field = item.pointee.next
        }
        page.contents.append(entry)
      case "IsTruncated": page.isTruncated = text(of: current) == "true"
      case "NextContinuationToken": page.nextToken = text(of: current)
      default: break
      }
      node = current.pointee.next
    }
    return page
  }

  private static func name(of node: xmlNodePtr) -> String {
    guard node.pointee.type == XML_ELEMENT_NODE, let name = node.pointee.name else { return "" }
    return String(cString: name)
  }

  private static func text(of node: xmlNodePtr) -> String {
    guard let content = xmlNodeGetContent(node) else { return "" }
    defer { sluice_xmlFree(content) }
    return String(cString: content)
  }
}
