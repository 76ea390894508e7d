import Foundation
@_spi(Internals) import SluiceCore

/// An order in the domain, as the loader writes it.
public struct Order: Sendable, Hashable {
  public var id: String
  public var amountMinor: Int64
  public var currency: String
  public var status: OrderStatus
  public var createdAt: Timestamp
  public var customer: Customer
  public var items: [OrderItem]
}

public struct Customer: Sendable, Hashable {
  public var id: Int64
  public var name: String
}

public struct OrderItem: Sendable, Hashable {
  public var sku: String
  public var quantity: Int
  public var priceMinor: Int64
}

/// The states of an order. It owns the `order_statuses` table: ids are fixed per case and never
/// reused; a case removed from the enum stays in the table, marked retired.
public enum OrderStatus: String, LookupEnum {
  case pending
  case completed
  case cancelled

  public static var lookupTable: String { "order_statuses" }
  public static var lookupColumns: [Column] { [.boolean("is_final")] }

  public var lookupID: Int64 {
    switch self {
    case .pending: return 1
    case .completed: return 2
    case .cancelled: return 3
    }
  }

  /// Whether the order can still change.
  public var isFinal: Bool { self != .pending }

  public var lookupValues: [DatabaseValue?] { [.integer(isFinal ? 1 : 0)] }
}
