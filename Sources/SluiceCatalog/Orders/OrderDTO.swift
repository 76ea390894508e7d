import Foundation

/// An order as the export carries it (seed 002): `orderId` is a string so leading zeros survive,
/// money is in integer minor units, the status stays a string until the mapper.
public struct OrderDTO: Decodable, Sendable {
  public let identifier: String
  public let amountMinor: Int64
  public let currency: String
  public let status: String
  public let createdAt: Date
  public let customer: CustomerDTO
  public let items: [OrderItemDTO]

  enum CodingKeys: String, CodingKey {
    case identifier = "orderId"
    case amountMinor = "amount"
    case currency, status, createdAt, customer, items
  }
}

public struct CustomerDTO: Decodable, Sendable {
  public let id: Int64
  public let name: String
}

public struct OrderItemDTO: Decodable, Sendable {
  public let sku: String
  public let qty: Int
  public let priceMinor: Int64
}
