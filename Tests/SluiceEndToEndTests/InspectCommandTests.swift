import Foundation
import OrderSamples
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// `sluice inspect`, the real binary on committed samples, the shared corpus and files written
/// here: what it prints for each format, what it never prints, its JSON, its exit codes, and its
/// memory on a large input.
@Suite("sluice inspect, end to end")
struct InspectCommandTests {
  private func inspect(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let result = try SluiceCommand.run(["inspect"] + arguments)
    #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
    #expect(result.stderr.isEmpty, "\(result.stderr)", sourceLocation: sourceLocation)
    return result.stdout
  }

  /// The rows of the field table whose field is `path`, cells split on runs of two spaces.
  private func row(_ output: String, _ path: String) -> [String]? {
    let rows = output.components(separatedBy: "\n").drop { !$0.hasPrefix("  FIELD") }
    guard let line = rows.first(where: { $0.hasPrefix("  \(path) ") }) else { return nil }
    return line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }

  /// JSON lines nested past the record limit (256): inspect says why it found no record — the
  /// limit, and where — beside the 0, and in the DTO it writes; a first line that deep no longer
  /// makes the file one JSON document ("unexpected '{' after the end of the document").
  @Test func linesNestedPastTheLimitAreNamedWithTheirPlace() throws {
    let scratch = try TemporaryDirectory()
    let deep = String(repeating: #"{"a":"#, count: 300) + "1" + String(repeating: "}", count: 300)
    let reason = "the first at line 1, byte 1280: nesting deeper than 256 levels"
    let two = try inspect([try scratch.write("deep.ndjson", deep + "\n" + deep + "\n")])
    #expect(two.contains("format   NDJSON, one record per line (detected)"), "\(two)")
    #expect(two.contains("records  0, all of them; 2 could not be read, \(reason)\n"), "\(two)")
    let one = try scratch.write("one.ndjson", deep + "\n")
    let single = try inspect([one, "--format", "ndjson"])
    #expect(single.contains("records  0, all of them; 1 could not be read, \(reason)\n"), "\(single)")
    let dto = try inspect([one, "--format", "ndjson", "--swift", "Deep"])
    #expect(dto.contains("// No record was read (1 could not be read, \(reason)): there are no fields"), "\(dto)")
    #expect(!dto.contains("are not objects"), "\(dto)")
  }

  private func json(_ arguments: [String]) throws -> [String: Any] {
    let output = try inspect(arguments + ["--json"])
    return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
  }

  // MARK: - Formats

  @Test func theOrdersSampleIsDescribedWithoutAnyOfItsValues() throws {
    let output = try inspect(["SampleData/orders.json.gz"])
    let lines = output.components(separatedBy: "\n")
    #expect(lines[0] == "file     SampleData/orders.json.gz")
    #expect(lines[1] == "size     93788 bytes, gzip")
    #expect(lines[2] == "format   JSON, a top-level array of records (detected)")
    #expect(lines[3] == "records  1000 read at '': a sample of --sample 1000, more follow (--all reads them all)")
    #expect(output.contains("\n  *  ''         ≥ 1000     1000  the top-level array\n"))
    #expect(output.contains("\n     [].items   ≥ 3026        5\n"))
    #expect(row(output, "orderId") == ["orderId", "string (integer-like)", "1000/1000", "100.0 %", "0", "10 chars"])
    #expect(row(output, "createdAt")?[1] == "string (date-like)")
    #expect(row(output, "customer.name") == ["customer.name", "string", "1000/1000", "100.0 %", "0", "3…17 chars"])
    #expect(row(output, "items") == ["items", "array", "1000/1000", "100.0 %", "0", "1…5 elements"])
    #expect(row(output, "items[]") == ["items[]", "object", "3026", "elements", "0"])
    #expect(row(output, "items[].qty") == ["items[].qty", "integer", "3026/3026", "100.0 %", "0"])
    // No value of the sample is printed: not a name, a SKU, an id, a currency or a date.
    for value in ["Aiko Lima", "Rahul Martin", "SKU-97227", "0000000001", "EUR", "2023-01-01T00:00:03.922Z", "pending"]
    {
      #expect(!output.contains(value), "\(value) printed")
    }
    let shown = try inspect(["SampleData/orders.json.gz", "--show-values"])
    #expect(shown.contains("EXAMPLES"))
    #expect(row(shown, "customer.name")?.last == #""Aiko Lima", "Rahul Martin", "Zoë Müller""#)
    #expect(row(shown, "orderId")?.last == #""0000000001", "0000000002", "0000000003""#)
  }

  @Test func everyRecordWithAll() throws {
    let output = try inspect(["SampleData/orders.json.gz", "--all"])
    #expect(output.contains("\nsize     93788 bytes, gzip (629285 bytes decompressed)\n"))
    #expect(output.contains("\nrecords  2000 at '', all of them\n"))
    #expect(output.contains("\n     [].items     6055        5\n"))
    #expect(row(output, "customer.id")?[2] == "2000/2000")
    #expect(!output.contains("note:"))
  }

  @Test func recordsUnderAKeyWithExactPresenceNullsAndLengths() throws {
    let scratch = try TemporaryDirectory()
    let records = [
      #"{"id": 1, "email": "ann@example.org", "note": "first", "address": {"city": "Oslo", "zip": null}}"#,
      #"{"id": 2, "email": "bo@example.org", "note": null, "address": {"city": "Rome"}}"#,
      #"{"id": 3, "email": "cy@ex.org", "note": null, "address": null}"#,
      #"{"id": 4, "email": "d@x.io", "note": "fourth note", "address": {"city": "Lisbon", "zip": "1000-001"}}"#,
      #"{"id": 5, "email": "eve@example.org", "note": "n"}"#, #"{"id": 6, "email": "fay@example.org"}"#,
      #"{"id": 7, "email": "gus@example.org", "note": "seventh"}"#, #"{"id": 8, "note": "eighth"}"#,
    ]
    let file = try scratch.write(
      "export.json", #"{"exportedAt": "2024-05-01", "data": {"items": [\#n\#(records.joined(separator: ",\n"))]}}"#)
    let output = try inspect([file])
    #expect(output.contains("\nformat   JSON, records in an array at a key path (detected)\n"))
    #expect(output.contains("\nrecords  8 at data.items, all of them\n"))
    #expect(output.contains("\n  *  data.items        8        8\n"))
    #expect(row(output, "id") == ["id", "integer", "8/8", "100.0 %", "0"])
    #expect(row(output, "email") == ["email", "string", "7/8", "87.5 %", "0", "6…15 chars"])
    #expect(row(output, "note") == ["note", "string", "7/8", "87.5 %", "2", "25.0 %", "1…11 chars"])
    #expect(row(output, "address") == ["address", "object", "4/8", "50.0 %", "1", "12.5 %"])
    // Out of the three address objects.
    #expect(row(output, "address.city") == ["address.city", "string", "3/3", "100.0 %", "0", "4…6 chars"])
    #expect(row(output, "address.zip") == ["address.zip", "string", "2/3", "66.7 %", "1", "33.3 %", "8 chars"])
    #expect(!output.contains("Oslo") && !output.contains("example.org"))

    let document = try json([file])
    #expect(document["recordPath"] as? String == "data.items")
    #expect(document["records"] as? Int == 8)
    #expect(document["moreRecords"] as? Bool == false)
    let fields = try #require(document["fields"] as? [[String: Any]])
    let zip = try #require(fields.first { $0["path"] as? String == "address.zip" })
    #expect(zip["holders"] as? Int == 3)
    #expect(zip["present"] as? Int == 2)
    #expect(zip["null"] as? Int == 1)
    #expect(zip["types"] as? [String: Int] == ["string": 1, "null": 1])
    #expect(!fields.contains { $0["examples"] != nil })
  }

  @Test func gzipNDJSONOfTheSampleAndTheOpenFoodFactsCorpus() throws {
    let orders = try inspect(["SampleData/orders.ndjson.gz", "--sample", "50"])
    #expect(orders.contains("\nsize     93423 bytes, gzip\n"))
    #expect(orders.contains("\nformat   NDJSON, one record per line (detected)\n"))
    #expect(orders.contains("\nrecords  50 read: a sample of --sample 50, more follow (--all reads them all)\n"))
    #expect(orders.contains("Record paths: none; NDJSON's records are its lines."))
    #expect(row(orders, "items[].sku")?[3] == "100.0 %")

    let products = try inspect([
      Corpus.root + "/products-orders/openfoodfacts/openfoodfacts-products-first200.jsonl.gz", "--all",
    ])
    #expect(products.contains("\nrecords  200, all of them\n"))
    // Barcodes are strings that look like integers; fields of mixed types list every kind.
    #expect(row(products, "code")?[1] == "string (integer-like)")
    #expect(row(products, "product_quantity")?[1] == "string 12 (integer-like), integer 9, number 3")
    #expect(row(products, "product_quantity")?[2] == "24/200")
    #expect(row(products, "serving_quantity")?[4...5] == ["1", "0.5 %"])
    #expect(row(products, "rev")?[1] == "integer 199, string 1 (integer-like)")
    // 312 keys, nested maps keyed by image ids: the field path cap is reached and said so.
    #expect(products.contains("\nnote: field paths capped at 1000: "))
  }

  @Test func stackExchangeDumpsInXML() throws {
    let corpus = try inspect([Corpus.root + "/xml-legacy/stackexchange-conlang-meta/Posts.xml"])
    #expect(corpus.contains("\nformat   XML, records are elements (detected)\n"))
    #expect(corpus.contains("\nrecords  177 at posts.row, all of them\n"))
    #expect(corpus.contains("\n  *  posts.row      177      177\n"))
    #expect(row(corpus, "Title") == ["Title", "string", "55/177", "31.1 %", "0", "17…122 chars"])
    #expect(
      row(corpus, "OwnerUserId") == ["OwnerUserId", "string (integer-like)", "171/177", "96.6 %", "0", "1…4 chars"])
    #expect(row(corpus, "ParentId")?[2...3] == ["115/177", "65.0 %"])
    #expect(!corpus.contains("Conlang") && !corpus.contains("&lt;"))

    let sample = try inspect(["SampleData/stackexchange/Posts.xml", "--show-values"])
    #expect(sample.contains("\nrecords  7 at posts.row, all of them\n"))
    #expect(row(sample, "Id")?.prefix(4) == ["Id", "string (integer-like)", "7/7", "100.0 %"])
    #expect(
      row(sample, "Title")?.last
        == #""Is a loud colony about to swarm?", "Honey crystallised within a week", "Feeding a caught swarm""#)
  }

  @Test func osmNodesWithRepeatedTagsAndAGivenRecordPath() throws {
    let file = Corpus.root + "/xml-legacy/osm/West-Oakland.osm"
    let nodes = try inspect([file])
    for candidate in [
      "  *  osm.node", "     osm.node.tag", "     osm.way", "     osm.way.nd", "     osm.relation.member",
    ] {
      #expect(nodes.contains("\n" + candidate + " "), "\(candidate)")
    }
    #expect(row(nodes, "tag") == ["tag", "array", "21/446", "4.7 %", "0", "1…8 elements"])
    #expect(row(nodes, "lat")?[1] == "string (number-like)")
    let ways = try inspect([file, "--record-path", "osm.way"])
    #expect(ways.contains("\nrecords  66 at osm.way, all of them\n"))
    #expect(ways.contains("\n  *  osm.way "))
    #expect(row(ways, "nd[].ref")?[1] == "string (integer-like)")
  }

  @Test func theJSONDocument() throws {
    let document = try json(["SampleData/orders.json.gz", "--sample", "10"])
    #expect(document["inspectVersion"] as? Int == 1)
    #expect(document["format"] as? String == "json")
    #expect(document["formatDetected"] as? Bool == true)
    #expect(document["recordPath"] as? String == "")
    #expect(document["recordPathKeys"] as? [String] == [])
    #expect(document["sample"] as? Int == 10)
    #expect(document["records"] as? Int == 10)
    #expect(document["moreRecords"] as? Bool == true)
    #expect(document["recordTypes"] as? [String: Int] == ["object": 10])
    #expect(document["candidatesComplete"] as? Bool == false)
    let input = try #require(document["input"] as? [String: Any])
    #expect(input["path"] as? String == "SampleData/orders.json.gz")
    #expect(input["bytes"] as? Int == 93788)
    #expect(input["gzip"] as? Bool == true)
    #expect(input["decompressedBytes"] == nil)
    let candidates = try #require(document["candidates"] as? [[String: Any]])
    #expect(candidates.map { $0["path"] as? String } == ["", "[].items"])
    #expect(candidates.map { $0["keys"] as? [String] } == [[], ["[]", "items"]])
    #expect(candidates.map { $0["records"] as? Int } == [10, 39])
    #expect(candidates.map { $0["exact"] as? Bool } == [false, false])
    #expect(candidates.map { $0["selected"] as? Bool } == [true, false])
    let fields = try #require(document["fields"] as? [[String: Any]])
    #expect(
      fields.compactMap { $0["path"] as? String } == [
        "orderId", "amount", "currency", "status", "createdAt", "customer", "customer.id", "customer.name", "items",
        "items[]", "items[].sku", "items[].qty", "items[].priceMinor",
      ])
    let created = try #require(fields.first { $0["path"] as? String == "createdAt" })
    let text = try #require(created["text"] as? [String: Any])
    #expect(text["looksLike"] as? String == "date")
    #expect(text["count"] as? Int == 10)
    #expect(
      document["notes"] as? [String] == [
        "the record paths were listed from the input up to 10 records in one array: counts marked ≥ are lower bounds, and paths that only appear later are missing (--all reads everything)"
      ])
  }

  @Test func aSampleAgainstEveryRecord() throws {
    let sampled = try json(["SampleData/orders.ndjson.gz", "--sample", "25"])
    #expect(sampled["records"] as? Int == 25)
    #expect(sampled["moreRecords"] as? Bool == true)
    let all = try json(["SampleData/orders.ndjson.gz", "--all"])
    #expect(all["records"] as? Int == 2000)
    #expect(all["moreRecords"] as? Bool == false)
    #expect(all["sample"] == nil)
    #expect((all["input"] as? [String: Any])?["decompressedBytes"] as? Int == 627282)
    let more = try json(["SampleData/orders.ndjson.gz", "--sample", "5000"])
    #expect(more["records"] as? Int == 2000)
    #expect(more["moreRecords"] as? Bool == false)
  }

  // MARK: - Errors and help

  @Test func errorsExitWithSysexitsCodes() throws {
    let scratch = try TemporaryDirectory()
    let missing = try SluiceCommand.run(["inspect", scratch.file("nope.json")])
    #expect(missing.status == 66)
    #expect(missing.stderr == "sluice: \(scratch.file("nope.json")): no such file\n")
    #expect(missing.stdout.isEmpty)

    let badJSON = try scratch.write("bad.json", "[{\"a\": 1},\n {\"a\": 2,}]")
    let malformed = try SluiceCommand.run(["inspect", badJSON])
    #expect(malformed.status == 65)
    #expect(malformed.stderr == "sluice: \(badJSON): line 2, byte 20: expected a string key in an object, found '}'\n")

    let badXML = try scratch.write("bad.xml", "<posts>\n<row Id=\"1\"/>\n<row Id=\"2\">\n</posts>")
    let brokenXML = try SluiceCommand.run(["inspect", badXML])
    #expect(brokenXML.status == 65)
    #expect(brokenXML.stderr.hasPrefix("sluice: \(badXML): line 4, byte "))
    #expect(brokenXML.stderr.contains("malformed XML: an end tag that does not match its start tag (column "))
    #expect(!brokenXML.stderr.contains("posts"), "libxml2's message named the tags: \(brokenXML.stderr)")

    let bomb = try SluiceCommand.run(["inspect", Corpus.root + "/attacks/xml-defusedxml/xmlbomb.xml"])
    #expect(bomb.status == 65)
    #expect(bomb.stderr.contains("the document declares the entity 'a'"))

    let text = try scratch.write("notes.txt", "hello")
    let unknownFormat = try SluiceCommand.run(["inspect", text])
    #expect(unknownFormat.status == 65)
    #expect(unknownFormat.stderr.contains("line 1, byte 0: the input starts with 'h'; expected JSON"))

    let object = try scratch.write("settings.json", #"{"a": 1, "b": [1, 2]}"#)
    let noRecords = try SluiceCommand.run(["inspect", object])
    #expect(noRecords.status == 65)
    #expect(noRecords.stderr.contains("holds no array of objects"))

    let wrongPath = try SluiceCommand.run([
      "inspect", "SampleData/telegram/account-result.json", "--record-path", "chats.items",
    ])
    #expect(wrongPath.status == 65)
    #expect(
      wrongPath.stderr.contains(
        "record path 'chats.items': no key 'items' in 'chats'; record paths found: chats.list, chats.list[].messages"))

    let packed = try Data(contentsOf: URL(fileURLWithPath: Repository.path("SampleData/orders.json.gz")))
    let cut = try scratch.write("cut.json.gz", Array(packed.prefix(40_000)))
    let truncated = try SluiceCommand.run(["inspect", cut, "--all"])
    #expect(truncated.status == 74)
    #expect(truncated.stderr.contains("gzip stream is truncated"))

    for (arguments, message) in [
      ([String](), "missing the input (sluice inspect INPUT)"),
      (["a.json", "b.json"], "expected one input, got 2 arguments"),
      (["-"], "inspect reads a file (it reads it more than once), not standard input"),
      (["x.json", "--format", "yaml"], "--format must be json, ndjson, xml, csv or tsv, not 'yaml'"),
      (["x.json", "--sample", "0"], "--sample must be a positive number of records, not '0'"),
      (["x.json", "--sample", "ten"], "--sample must be a positive number of records, not 'ten'"),
      (["x.json", "--sample", "5", "--all"], "--sample and --all exclude each other"),
      (["x.json", "--swift", "Order", "--json"], "--json and --swift exclude each other"),
      (["x.json", "--swift", "class"], "--swift needs a Swift type name"),
      (
        ["x.json", "--format", "ndjson", "--record-path", "a"],
        "--record-path applies to --format json and xml, not ndjson"
      ),
      (["x.json", "--values"], "unknown option --values"),
      (["SampleData/orders.ndjson.gz", "--record-path", "items"], "--record-path applies to JSON and XML"),
    ] {
      let result = try SluiceCommand.run(["inspect"] + arguments)
      #expect(result.status == 64, "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
      #expect(result.stdout.isEmpty)
    }
  }

  @Test func helpDescribesTheCommand() throws {
    let help = try inspect(["--help"])
    #expect(help.hasPrefix("USAGE: sluice inspect INPUT [--format json|ndjson|xml|csv|tsv] [--record-path PATH]"))
    for option in [
      "--sample N", "--all", "--show-values", "--json", "--swift NAME", "--delimiter C", "--no-header",
      "--encoding NAME",
    ] {
      #expect(help.contains(option), "\(option)")
    }
    let overview = try SluiceCommand.run(["--help"])
    #expect(overview.stdout.contains("sluice inspect INPUT [options]"))
  }

  // MARK: - Memory

  /// About 80 MB of JSON — 1,200 records of 64 KiB of hex text each, a key per record — as 10
  /// gzip members of ~4.6 MB: more than the memory bound, in text no window of deflate's
  /// compresses, with more field paths than the cap. Every record is read; the peak RSS stays
  /// under the bound the import's tests use.
  @Test func aLargeGzipInputIsInspectedInConstantMemory() throws {
    let scratch = try TemporaryDirectory()
    let file = scratch.file("large.json.gz")
    #expect(FileManager.default.createFile(atPath: file, contents: nil))
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
    var generator = SeededGenerator(seed: 42)
    let block = String((0..<(64 << 10)).map { _ in "0123456789abcdef".randomElement(using: &generator) ?? "0" })
    var member = #"{"export": {"by": "test"}, "data": ["#
    let records = 1_200
    var decompressed = 0
    for index in 0..<records {
      if index > 0 { member += ",\n" }
      member +=
        #"{"id": \#(index), "k\#(index)": \#(index), "payload": "\#(block)", "tags": ["a"], "n": {"x": \#(index).5}}"#
      if index == records - 1 { member += "]}\n" }
      if (index + 1) % 120 == 0 {
        decompressed += member.utf8.count
        try handle.write(contentsOf: Gzip.compress(Array(member.utf8), level: 1))
        member = ""
      }
    }
    try handle.close()
    let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
    #expect(size > 20 << 20 && size < 50 << 20, "\(size) bytes of gzip")
    #expect(decompressed > XMLAttackTests.memoryBound)

    let result = try SluiceBinary.measure(["inspect", file, "--all"])
    #expect(!result.timedOut)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("gzip (\(decompressed) bytes decompressed)"))
    #expect(result.stdout.contains("\nrecords  1200 at data, all of them\n"))
    #expect(row(result.stdout, "payload") == ["payload", "string", "1200/1200", "100.0 %", "0", "65536 chars"])
    #expect(result.stdout.contains("\nnote: field paths capped at 1000: "))
    #expect(
      result.peakResidentBytes < XMLAttackTests.memoryBound, "peak RSS \(result.peakResidentBytes >> 20) MiB")
  }
}
