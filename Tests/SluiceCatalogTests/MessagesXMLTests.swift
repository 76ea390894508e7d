import Foundation
import SluiceCatalog
@_spi(Internals) import SluiceCore
import SluicePostgreSQL
import SluiceSQLite
@_spi(Internals) import SluiceTestSupport
import Testing

/// One DTO for JSON and XML (design, "XML records"): the same messages written both ways load
/// into the same rows, and an XML message fails where its JSON twin does.
@Suite("Messages from XML")
struct MessagesXMLTests {
  static let json = [
    #"{"id": "1", "conversationId": "general", "conversationName": "General", "type": "text", "sender": "u1", "senderName": "Ana & Bo", "sentAt": "2024-05-01T09:01:00Z", "text": "Hello <all>"}"#,
    #"{"id": "2", "conversationId": "general", "type": "image", "sender": "u2", "sentAt": "2024-05-01T09:02:00Z", "replyTo": "1", "url": "https://x.example/a.png", "caption": "A", "width": 640, "height": 480}"#,
    #"{"id": "3", "conversationId": "general", "type": "file", "sender": "u1", "sentAt": "2024-05-01T09:03:00Z", "name": "a.pdf", "mimeType": "application/pdf", "sizeBytes": 1234}"#,
    #"{"id": "4", "conversationId": "general", "type": "system", "sentAt": "2024-05-01T09:04:00Z", "event": "join"}"#,
    #"{"id": "5", "conversationId": "dm/a", "type": "text", "sender": "u1", "sentAt": "2024-05-01T09:05:00Z", "text": "see", "attachments": [{"type": "image", "url": "c.png", "width": 1, "height": 2}, {"type": "file", "name": "b.txt", "sizeBytes": 3}]}"#,
    #"{"id": "6", "conversationId": "general", "type": "text", "sender": "u2", "sentAt": "2024-05-01T09:06:00Z", "text": "one", "attachments": [{"type": "file", "name": "only.txt"}]}"#,
  ]

  static let xml = """
    <?xml version="1.0" encoding="UTF-8"?>
    <messages>
      <message id="1" conversationId="general" conversationName="General" type="text" sender="u1" senderName="Ana &amp; Bo" sentAt="2024-05-01T09:01:00Z"><text>Hello &lt;all&gt;</text></message>
      <message id="2" conversationId="general" type="image" sender="u2" sentAt="2024-05-01T09:02:00Z" replyTo="1">
        <url>https://x.example/a.png</url><caption>A</caption><width>640</width><height>480</height>
      </message>
      <message id="3" conversationId="general" type="file" sender="u1" sentAt="2024-05-01T09:03:00Z" name="a.pdf" mimeType="application/pdf" sizeBytes="1234"/>
      <message id="4" conversationId="general" type="system" sentAt="2024-05-01T09:04:00Z" event="join"/>
      <message id="5" conversationId="dm/a" type="text" sender="u1" sentAt="2024-05-01T09:05:00Z">
        <text>see</text>
        <attachments>
          <attachment type="image" url="c.png" width="1" height="2"/>
          <attachment type="file" name="b.txt" sizeBytes="3"/>
        </attachments>
      </message>
      <message id="6" conversationId="general" type="text" sender="u2" sentAt="2024-05-01T09:06:00Z">
        <text>one</text>
        <attachments><attachment type="file" name="only.txt"/></attachments>
      </message>
    </messages>

    """

  private func run(_ text: String, format: PipelineConfiguration.Format, policy: Policy = .strict) throws
    -> (RunReport, DatabaseSnapshot)
  {
    let directory = try TemporaryDirectory()
    let input = try directory.write(format == .xml ? "messages.xml" : "messages.ndjson", text)
    let database = directory.file("m.sqlite")
    let configuration = PipelineConfiguration(
      name: "messages", input: input, format: format, recordPath: format == .xml ? ["messages", "message"] : [],
      policy: policy, database: .sqlite(database))
    let report = try Pipeline(dataset: MessagesDataset(), configuration: configuration).run()
    return (report, try DatabaseSnapshot(of: database, tables: MessageTables.schema.tableNames))
  }

  @Test func theSameMessagesInXMLLoadTheSameRows() throws {
    let (fromJSON, jsonRows) = try run(Self.json.joined(separator: "\n") + "\n", format: .ndjson)
    let (fromXML, xmlRows) = try run(Self.xml, format: .xml)
    #expect(fromJSON.status == .succeeded, "\(fromJSON.issues)")
    #expect(fromXML.status == .succeeded, "\(fromXML.issues)")
    #expect(fromXML.issues.isEmpty, "\(fromXML.issues)")
    #expect(xmlRows == jsonRows)
    #expect(xmlRows.count("messages") == 6)
    #expect(xmlRows.count("message_attachments") == 3)
    #expect(xmlRows.tables["text_messages"]?.contains("'general/1'|'Hello <all>'") == true)
  }

  @Test func anUnknownKindInXMLIsNamedAtType() throws {
    let document = """
      <messages>
        <message id="1" conversationId="general" type="poll" sender="u1" sentAt="2024-05-01T09:01:00Z"/>
        <message id="2" conversationId="general" type="text" sender="u1" sentAt="2024-05-01T09:02:00Z">
          <text>hi</text><attachments><attachment type="location"/><attachment type="image" url="a.png"/></attachments>
        </message>
      </messages>
      """
    var policy = Policy.lenient
    policy.lenientArrays = true
    let (report, rows) = try run(document, format: .xml, policy: policy)
    #expect(report.status == .succeeded, "\(report.issues)")
    #expect(
      report.drift.unsupportedEnumValues.map { "\($0.path) \($0.value ?? "") \($0.count)" } == [
        "attachments[].type location 1", "type poll 1",
      ])
    #expect(rows.count("messages") == 1)
    #expect(rows.count("message_attachments") == 1)
  }
}
