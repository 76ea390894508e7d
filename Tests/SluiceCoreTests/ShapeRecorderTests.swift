import Foundation
import Testing

@_spi(Internals) @testable import SluiceCore
@testable import SluiceInspect

/// The recording decoder on small DTOs: what it learns from each kind of `init(from:)`.
@Suite("Contract: the shape recorder")
struct ShapeRecorderTests {
  struct Item: Decodable {
    let sku: String
    let qty: Int32
  }

  struct Order: Decodable {
    let id: String
    let note: String?
    let placedAt: Date
    let items: [Item]
    let total: Double
    let paid: Bool
  }

  @Test func synthesizedDecodableRecordsKeysTypesAndPresence() throws {
    let shape = ShapeRecorder.shape(of: Order.self, choices: [:])
    let object = try #require(shape.object(at: ""))
    #expect(object.fields.map(\.key) == ["id", "note", "placedAt", "items", "total", "paid"])
    #expect(object["id"]?.shape == .string)
    #expect(object["id"]?.isRequired == true)
    #expect(object["id"]?.allowsNull == false)
    #expect(object["note"]?.isRequired == false)
    #expect(object["note"]?.allowsNull == true)
    #expect(object["placedAt"]?.shape == .date)
    #expect(object["total"]?.shape == .number)
    #expect(object["paid"]?.shape == .boolean)
    let items = try #require(shape.object(at: "items[]"))
    #expect(items["qty"]?.shape == .integer(minimum: Int64(Int32.min), maximum: UInt64(Int32.max)))
  }

  struct Patched: Decodable {
    let id: String
    let nickname: Patch<String>
  }

  @Test func patchFieldIsOptionalAndNullableAndMarkedAsAPatch() throws {
    let object = try #require(ShapeRecorder.shape(of: Patched.self, choices: [:]).object(at: ""))
    let nickname = try #require(object["nickname"])
    #expect(nickname.isPatch)
    #expect(!nickname.isRequired)
    #expect(nickname.allowsNull)
    #expect(nickname.shape == .string)
    #expect(object["id"]?.isPatch == false)
  }

  /// A number, or on a type mismatch a string the type parses itself.
  struct NumberOrDigits: Decodable {
    let value: Int64
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      do {
        value = try container.decode(Int64.self)
      } catch DecodingError.typeMismatch {
        guard let parsed = Int64(try container.decode(String.self)) else {
          throw DecodingError.dataCorruptedError(in: container, debugDescription: "not digits")
        }
        value = parsed
      }
    }
  }

  /// A string, or on a type mismatch an integer, both kept.
  struct StringOrNumber: Decodable {
    let text: String
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      do {
        text = try container.decode(String.self)
      } catch DecodingError.typeMismatch {
        text = String(try container.decode(Int.self))
      }
    }
  }

  struct Flexible: Decodable {
    let created: NumberOrDigits
    let sender: StringOrNumber
  }

  @Test func aTypeTriedAsOneTypeThenAnotherRecordsBothAlternatives() throws {
    let object = try #require(ShapeRecorder.shape(of: Flexible.self, choices: [:]).object(at: ""))
    let int64 = RecordShape.integer(minimum: Int64.min, maximum: UInt64(Int64.max))
    // The string the DTO parses itself refused the placeholder: a string, checked further.
    #expect(object["created"]?.shape == .alternatives([int64, .refined(.string)]))
    #expect(
      object["sender"]?.shape
        == .alternatives([.string, .integer(minimum: Int64(Int.min), maximum: UInt64(Int.max))]))
  }

  struct Anything: Decodable {
    init(from decoder: any Decoder) throws {}
  }

  struct WithUnmapped: Decodable {
    let id: String
    let blocks: Anything?
  }

  @Test func aValueNothingIsAskedOfIsAnyValue() throws {
    let object = try #require(ShapeRecorder.shape(of: WithUnmapped.self, choices: [:]).object(at: ""))
    #expect(object["blocks"]?.shape == .any)
  }

  /// Fields that depend on `kind`, decoded from the same object by the kind's own DTO.
  struct Shape: Decodable {
    struct Circle: Decodable { let radius: Double }
    struct Label: Decodable {
      let text: String
      let size: Int?
    }
    enum Content {
      case circle(Circle)
      case label(Label)
      case unknown
    }

    let id: String
    let kind: String
    let content: Content

    enum CodingKeys: String, CodingKey { case id, kind }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      id = try container.decode(String.self, forKey: .id)
      kind = try container.decode(String.self, forKey: .kind)
      switch kind {
      case "circle": content = .circle(try Circle(from: decoder))
      case "label": content = .label(try Label(from: decoder))
      default: content = .unknown
      }
    }
  }

  @Test func aDiscriminatorsDeclaredValuesExploreEachBranchAsVariants() throws {
    let shape = ShapeRecorder.shape(of: Shape.self, choices: ["kind": ["circle", "label"]])
    guard case .variants(let variants) = shape else {
      Issue.record("not variants: \(shape)")
      return
    }
    #expect(variants.discriminator == "kind")
    #expect(variants.common.fields.map(\.key) == ["id", "kind"])
    #expect(variants.cases.map(\.value) == ["circle", "label"])
    #expect(variants.cases[0].fields.fields.map(\.key) == ["radius"])
    #expect(variants.cases[1].fields.fields.map(\.key) == ["text", "size"])
    #expect(variants.cases[1].fields["size"]?.isRequired == false)
  }

  @Test func withoutDeclaredValuesOnlyTheDefaultBranchIsSeen() throws {
    let object = try #require(ShapeRecorder.shape(of: Shape.self, choices: [:]).object(at: ""))
    #expect(object.fields.map(\.key) == ["id", "kind"])
  }

  struct Plain: Decodable {
    let status: String
    let amount: Int64
  }

  @Test func declaredValuesThatChangeNothingStayAPlainField() throws {
    let shape = ShapeRecorder.shape(of: Plain.self, choices: ["status": ["open", "closed"]])
    #expect(shape.object(at: "")?["status"]?.shape == .string)
  }

  final class Node: Decodable {
    let name: String
    let children: [Node]
  }

  @Test func aRecursiveDTOIsFollowedToABoundedDepth() throws {
    let shape = ShapeRecorder.shape(of: Node.self, choices: [:])
    #expect(shape.object(at: "children[].children[]")?["name"]?.shape == .string)
  }

  struct Refusing: Decodable {
    let code: String
    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      code = try container.decode(String.self)
      guard !code.isEmpty else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "empty") }
    }
  }

  struct Wrapper: Decodable { let code: Refusing }

  @Test func aDTOThatRefusesEveryPlaceholderIsReportedNotInvented() throws {
    guard case .unwalkable(let reason) = ShapeRecorder.shape(of: Wrapper.self, choices: [:]) else {
      Issue.record("walked a DTO that refuses every placeholder")
      return
    }
    #expect(reason.contains("Wrapper"))
  }

  enum Status: String, Decodable, CaseIterable {
    case open, closed
  }

  enum Priority: Int, Decodable, CaseIterable {
    case low = 1
    case high = 2
  }

  struct Ticket: Decodable {
    let status: Status
    let priority: Priority?
  }

  @Test func aCaseIterableRawValueEnumIsAnEnumOfItsRawValues() throws {
    let object = try #require(ShapeRecorder.shape(of: Ticket.self, choices: [:]).object(at: ""))
    #expect(object["status"]?.shape == .enumeration(["open", "closed"], isInteger: false))
    #expect(object["priority"]?.shape == .enumeration(["1", "2"], isInteger: true))
    #expect(object["priority"]?.isRequired == false)
  }

  /// Fields that depend on an enum-typed kind: explored without any declaration.
  struct Event: Decodable {
    enum Kind: String, Decodable, CaseIterable { case click, scroll }
    let kind: Kind
    let x: Int?
    let distance: Double?

    enum CodingKeys: String, CodingKey { case kind, x, distance }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      kind = try container.decode(Kind.self, forKey: .kind)
      switch kind {
      case .click:
        x = try container.decode(Int.self, forKey: .x)
        distance = nil
      case .scroll:
        x = nil
        distance = try container.decode(Double.self, forKey: .distance)
      }
    }
  }

  @Test func anEnumTypedDiscriminatorIsExploredCaseByCase() throws {
    guard case .variants(let variants) = ShapeRecorder.shape(of: Event.self, choices: [:]) else {
      Issue.record("not variants")
      return
    }
    #expect(variants.discriminator == "kind")
    #expect(variants.cases.map(\.value) == ["click", "scroll"])
    #expect(variants.cases.map { $0.fields.fields.map(\.key) } == [["x"], ["distance"]])
  }
}
